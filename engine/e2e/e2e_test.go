// Package e2e_test holds eggo's end-to-end tests on the testbed: real
// hosts (nspawn containers), real Kubernetes clusters. They drive eggo
// only as a user's program would, through the engine's Workspace
// (engine.Open, then Plan and Apply) or the eggo binary, and check the
// hosts. They boot clusters: `go test -short` skips them, and they need
// the testbed's tools (see internal/harness/nspawntest).
package e2e_test

import (
	"errors"
	"io/fs"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/eggo-project/eggo/engine"
	"github.com/eggo-project/eggo/internal/harness/eggotest"
	"github.com/eggo-project/eggo/resources"
	"github.com/eggo-project/eggo/state"
)

// readStateFile reads the state file at path without a keyring; (nil,
// nil) when there is none yet.
func readStateFile(path string) (*state.State, error) {
	st, err := state.Read(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return st, err
}

// actions are the plan's steps' actions by address.
func actions(p *engine.Plan) map[string]resources.Action {
	m := map[string]resources.Action{}
	for _, s := range p.Steps {
		m[s.Addr] = s.Action
	}
	return m
}

// changed lists the plan's changes, for a failure's message.
func changed(p *engine.Plan) string {
	var out []string
	for _, s := range p.Steps {
		if s.Action != resources.NoOp {
			out = append(out, string(s.Action)+" "+s.Addr)
		}
	}
	return strings.Join(out, ", ")
}

// hookSteps are the addresses of the plan's hook steps.
func hookSteps(p *engine.Plan) []string {
	var out []string
	for _, s := range p.Steps {
		if s.Kind == "hook" {
			out = append(out, s.Addr)
		}
	}
	return out
}

func hasReason(rs []resources.Reason, code string) bool {
	for _, r := range rs {
		if r.Code == code {
			return true
		}
	}
	return false
}

// base64Run is a stretch of base64 long enough to be a key or a
// fingerprint: random material that can hold a short name by chance.
var base64Run = regexp.MustCompile(`[A-Za-z0-9+/=]{20,}`)

// namesWord reports whether text holds word as a word of its own outside
// base64 runs: a fingerprint such as SHA256:…Vh1f… names no node.
func namesWord(text, word string) bool {
	rest := base64Run.ReplaceAllString(text, " ")
	return regexp.MustCompile(`\b` + regexp.QuoteMeta(word) + `\b`).MatchString(rest)
}

// TestKubernetesOnTestbed is issue 3's end-to-end run on six real hosts: a
// load balancer, two masters with etcd, an etcd-only node and a worker;
// then a no-op, a master cut off mid-apply, a join (of a worker on a
// second subnet, behind a router), a delete, the switch of the control
// plane to static pods (undone once, its pod unable to run) with the API
// polled, a rolling upgrade of the pods and a destroy.
func TestKubernetesOnTestbed(t *testing.T) {
	parallel(t)
	kubernetesE2E(t, binaryMode)
}

// TestKubernetesPodsOnTestbed is the same run from static pods
// (implementation = "pod"), with what only pods have instead of the cut:
// drift of a manifest, a crash-looping pod rolled back with the roll
// stopped; then the switch to systemd units, the units' upgrade, and issue
// 3's faults (clusterFaults) before the destroy.
func TestKubernetesPodsOnTestbed(t *testing.T) {
	parallel(t)
	kubernetesE2E(t, podMode)
}

// TestMain builds eggo once for the tests that run it as a program.
func TestMain(m *testing.M) { os.Exit(eggotest.Main(m)) }
