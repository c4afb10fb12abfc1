package kube

import (
	"fmt"
	"sync"

	"github.com/eggo-project/eggo/providers/shell"
	"github.com/eggo-project/eggo/resources"
)

// What a service runs on its host when it goes for good, its cleanup, is
// eggo's code, never the state's text: whoever can write the state file
// need not be anyone eggo would let run a command as root on every node.
// A record keeps the cleanup its eggo made (a changed one is an update
// that only records), but a delete only compares it: it must be one that
// some eggo made for the record's component — today's, or an older eggo's
// (the git history of each generator, below) — or the state is refused
// when it is read; and a delete runs today's cleanup for the parameters
// the recorded one was made with. A state's writer chooses, at most, which
// of eggo's cleanups runs, and an older eggo's cleanup runs as eggo writes
// it today (the containerd cleanup of the first day killed every pid of a
// shared cgroup tree). post_start is checked the same way; it is never run
// from a record (a start runs the configuration's).

// cleanupParams are what a component's cleanup is made from besides the
// component.
type cleanupParams struct {
	configDir  string    // etcd: how the member first started is in config_dir/etcd
	family     podFamily // flanneld and the routes service before it: IPv4 or IPv6
	cgroupRoot bool      // the kubelet's cgroup root per node goes with the service
}

// serviceCleanup is the cleanup of component made with p: what the
// component's service records, and what a delete runs.
func serviceCleanup(component string, p cleanupParams) string {
	switch component {
	case resources.CompContainerd:
		return containerdCleanup(p.cgroupRoot)
	case resources.CompKubelet:
		if p.cgroupRoot { // kubelets of 0977f09 and 5b951c8, before containerd took it
			return cgroupRootCleanup + kubeletCleanup
		}
		return kubeletCleanup
	case resources.CompKubeProxy:
		return kubeProxyCleanup
	case resources.CompFlannel:
		return flannelCleanup(p.family)
	case resources.CompPodRoutes:
		return podRoutesCleanup(p.family)
	case resources.CompEtcd:
		return etcdCleanup(p.configDir)
	}
	return ""
}

// script is a component's recorded script text.
type script struct{ component, text string }

// knownCleanups are the cleanups eggo has recorded, but etcd's (which
// names config_dir) and the kubelet's of 0977f09 (which names the node),
// each with the parameters it was made with.
var knownCleanups = sync.OnceValue(func() map[script]cleanupParams {
	m := map[script]cleanupParams{}
	add := func(component string, p cleanupParams) { m[script{component, serviceCleanup(component, p)}] = p }
	// Today's.
	add(resources.CompContainerd, cleanupParams{})
	add(resources.CompContainerd, cleanupParams{cgroupRoot: true})
	add(resources.CompKubelet, cleanupParams{})
	add(resources.CompKubeProxy, cleanupParams{})
	for _, fam := range []podFamily{ipv4Family, ipv6Family} {
		add(resources.CompFlannel, cleanupParams{family: fam})
		add(resources.CompPodRoutes, cleanupParams{family: fam}) // 351bd36 to e9cc6e0, unchanged
	}
	// Older eggos', made with what today's is made with.
	m[script{resources.CompContainerd, containerdCleanupA1A8225}] = cleanupParams{}
	m[script{resources.CompKubelet, kubeletCgroupCleanup5B951C8 + kubeletCleanup}] = cleanupParams{cgroupRoot: true}
	return m
})

// cleanupToRun is what a delete runs for the service record a of node:
// today's cleanup for the parameters of the one recorded ("" when none is
// recorded), or an error when the recorded one is not one eggo made for
// the record's component.
func cleanupToRun(a resources.Attrs, node string) (string, error) {
	v, ok := a[svcCleanup]
	if !ok {
		return "", nil
	}
	recorded, isString := v.(string)
	if !isString {
		return "", fmt.Errorf("%s is not a string", svcCleanup)
	}
	if recorded == "" {
		return "", nil
	}
	component := resources.AttrString(a[svcComponent])
	if p, ok := knownCleanups()[script{component, recorded}]; ok {
		return serviceCleanup(component, p), nil
	}
	switch component {
	case resources.CompEtcd:
		if dir, err := serviceConfigDir(a, component); err == nil && dir != "" && recorded == etcdCleanup(dir) {
			return recorded, nil
		}
	case resources.CompKubelet:
		if recorded == kubeletCgroupCleanup0977F09(node)+kubeletCleanup {
			return serviceCleanup(component, cleanupParams{cgroupRoot: true}), nil
		}
	}
	return "", fmt.Errorf("%s is not a cleanup eggo makes for %s: a delete runs eggo's own cleanup, and a record names which", svcCleanup, componentText(component))
}

// checkPostStart refuses a recorded post_start that is not one eggo made
// for the record's component: containerd's import of the bundle's images
// (today's, or the first day's import of the pause image alone); no other
// component has one.
func checkPostStart(a resources.Attrs) error {
	v, ok := a[svcPostStart]
	if !ok {
		return nil
	}
	text, isString := v.(string)
	if !isString {
		return fmt.Errorf("%s is not a string", svcPostStart)
	}
	component := resources.AttrString(a[svcComponent])
	if text == "" || component == resources.CompContainerd && (text == containerdPostStart || text == containerdPostStartA1A8225) {
		return nil
	}
	return fmt.Errorf("%s is not one eggo makes for %s: eggo runs only its own after a start", svcPostStart, componentText(component))
}

// componentText names a record's component for a message.
func componentText(component string) string {
	if component == "" {
		return "a record naming no component"
	}
	return "the " + component + " service"
}

// The scripts of older eggos that differ from today's, from the history of
// their generators (git log -p -S on each).
const (
	// containerdCleanupA1A8225 is containerd's cleanup from a1a8225 to
	// 6f9a6f5 (the first day), which killed by cgroup.
	containerdCleanupA1A8225 = `find /sys/fs/cgroup -path '*kubepods*' -name cgroup.procs -exec cat {} + 2>/dev/null | sort -u | xargs -r kill -9 2>/dev/null
pkill -9 -f containerd-shim 2>/dev/null
awk '{print $2}' /proc/mounts | grep -E '^/run/containerd/|^/var/lib/containerd/|^/run/netns/cni-' | sort -r | xargs -r -n1 umount -l 2>/dev/null
for ns in $(ip netns list 2>/dev/null | awk '/^cni-/{print $1}'); do ip netns delete "$ns"; done
ip link delete cni0 2>/dev/null
rm -rf /run/containerd
true`
	// containerdPostStartA1A8225 is containerd's post_start from a1a8225
	// to 67c4b60: the pause image only.
	containerdPostStartA1A8225 = "ctr -n k8s.io images import /var/lib/eggo/images/pause.tar >/dev/null"
	// kubeletCgroupCleanup5B951C8 preceded the kubelet's cleanup with a
	// cgroup root per node, from 5b951c8 to 291f901 (containerd's since).
	kubeletCgroupCleanup5B951C8 = `root=eggo-$(cat /etc/machine-id)
for d in /sys/fs/cgroup/*/"$root"; do [ -d "$d" ] && find "$d" -depth -type d -exec rmdir {} + 2>/dev/null; done
`
)

// kubeletCgroupCleanup0977F09 preceded the kubelet's cleanup of node with
// a cgroup root per node in 0977f09, whose root was named after the node.
func kubeletCgroupCleanup0977F09(node string) string {
	return fmt.Sprintf("for d in /sys/fs/cgroup/*/%s; do [ -d \"$d\" ] && find \"$d\" -depth -type d -exec rmdir {} + 2>/dev/null; done\n", shell.Quote("eggo-"+node))
}

// The routes service eggo ran before flannel (resources.CompPodRoutes,
// 351bd36 to e9cc6e0) is only deleted now: its cleanup is here, as that
// eggo made it, so that a delete runs eggo's code and not the record's.
const (
	podRouteProto = 77 // ip route … proto 77: the routes it added
	podMasqChain  = "EGGO-POD-MASQ"
	podFwdChain   = "EGGO-POD-FWD"
	podRouteRun   = legacyRouteRun // the forwarding value it found
)

// podRoutesCleanup removes what the routes service added: its routes, its
// chains, and the forwarding value it found, restored.
func podRoutesCleanup(fam podFamily) string {
	ip := "ip -4"
	if fam == ipv6Family {
		ip = "ip -6"
	}
	return fmt.Sprintf(`%[1]s route flush proto %[2]d 2>/dev/null
%[3]s -t nat -D POSTROUTING -j %[4]s 2>/dev/null
%[3]s -t nat -F %[4]s 2>/dev/null && %[3]s -t nat -X %[4]s
%[3]s -D FORWARD -j %[5]s 2>/dev/null
%[3]s -F %[5]s 2>/dev/null && %[3]s -X %[5]s
if [ -f %[6]s/forward.before ]; then cat %[6]s/forward.before > %[7]s; fi
rm -rf %[6]s
true`, ip, podRouteProto, fam.iptables, podMasqChain, podFwdChain, podRouteRun, fam.forward)
}
