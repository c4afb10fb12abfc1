package kube

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/eggo-project/eggo/providers/shell"
	"github.com/eggo-project/eggo/resources"
)

// componentChecks are the live checks a service's component adds to its
// refresh.
func componentChecks(rc *resources.RunContext, prior resources.Object, s service) []liveCheck {
	if s.Component == resources.CompFlannel {
		if c, ok := podRoutesCheck(rc, prior.Node); ok {
			return []liveCheck{c}
		}
	}
	return nil
}

// podRoutes is what every Node's routes through flannel.1 should add
// up to: the pod subnets of the Nodes whose flanneld is recorded.
type podRoutes struct {
	subnet map[string]string // node → its pod subnet
	count  int
	sum    string // sha256 of the sorted subnets, one a line
}

// podRoutesCheck compares the routes through flannel.1 on node with the
// pod subnets of the other Nodes running flanneld, as recorded. flannel
// programs a route when a Node's lease appears and re-programs them all
// when it starts, but a route deleted by hand stays deleted until then:
// the plan shows it as drift of flanneld, and the apply restarts it.
//
// The node prints the number and the sha256 of its routes' subnets, its
// own subnet added (so that every Node's expected answer is the same
// one, made once per run): a node's refresh costs the same however many
// Nodes there are. A node whose answer differs looks again for up to 5
// s, as flannel adds the route of a Node that just joined within a
// moment of its lease: a plan right after a join is not drift.
func podRoutesCheck(rc *resources.RunContext, node string) (liveCheck, bool) {
	v, _ := rc.Memo("service/flanneld pod routes", func() (any, error) { return recordedPodRoutes(rc), nil })
	want := v.(podRoutes)
	own, ok := want.subnet[node]
	if !ok {
		return liveCheck{}, false // its subnet or its flanneld is not recorded yet
	}
	expect := fmt.Sprintf("%d %s", want.count, want.sum)
	script := fmt.Sprintf(`for i in 1 2 3 4 5 6; do r=$({ ip -o route show dev %s 2>/dev/null | awk '{print $1}'; echo %s; } | LC_ALL=C sort); got="$(printf '%%s\n' "$r" | grep -c .) $(printf '%%s\n' "$r" | sha256sum | cut -d' ' -f1)"; [ "$got" = %s ] && break; [ $i = 6 ] || sleep 1; done; printf '%%s' "$got"`,
		shell.Quote(FlannelLink), shell.Quote(own), shell.Quote(expect))
	verdict := func(out string) []string {
		f := strings.Fields(out)
		if strings.Join(f, " ") == expect {
			return nil
		}
		have := "no answer"
		if len(f) == 2 {
			n, _ := strconv.Atoi(f[0])
			have = fmt.Sprintf("%d", max(n-1, 0))
		}
		return []string{fmt.Sprintf("the routes through %s (%s) are not the pod subnets of the %d other Nodes running flanneld (a route deleted or added by hand)",
			FlannelLink, have, want.count-1)}
	}
	return liveCheck{name: "pod_routes", script: script, verdict: verdict}, true
}

// recordedPodRoutes is podRoutes from the state as the run found it.
func recordedPodRoutes(rc *resources.RunContext) podRoutes {
	subnets := map[string]string{}
	for _, o := range rc.Recorded(K8sNode{}.Name()) {
		if s := resources.AttrString(o.Attrs[AttrPodSubnet]); s != "" {
			subnets[o.Node] = s
		}
	}
	out := podRoutes{subnet: map[string]string{}}
	var lines []string
	for _, o := range rc.Recorded("service") {
		if o.Pending || o.Attrs == nil || resources.AttrString(o.Attrs[svcComponent]) != resources.CompFlannel {
			continue
		}
		if s, ok := subnets[o.Node]; ok {
			out.subnet[o.Node] = s
			lines = append(lines, s)
		}
	}
	slices.Sort(lines)
	h := sha256.New()
	for _, l := range lines {
		h.Write([]byte(l + "\n"))
	}
	out.count, out.sum = len(lines), hex.EncodeToString(h.Sum(nil))
	return out
}
