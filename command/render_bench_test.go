package command

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/eggo-project/eggo/engine"
	"github.com/eggo-project/eggo/resources"
)

// createPlan is a plan creating nodes workers' services: the attributes a
// kubelet's creation shows (a unit and a script as heredocs, a connection,
// a map of digests, a sensitive list of files).
func createPlan(nodes int) *engine.Plan {
	p := &engine.Plan{}
	for i := range nodes {
		node := fmt.Sprintf("w%05d", i)
		after := resources.Attrs{
			"address": fmt.Sprintf("10.1.%d.%d", i/250, i%250), "component": "kubelet", "version": "1.31.4",
			"connection": map[string]any{"agent": false, "bastion": nil, "port": 22.0, "private_key_file": "/root/.ssh/id_ed25519",
				"retries": 3.0, "sudo": false, "timeout": "10s", "type": "ssh", "user": "root"},
			"data_dirs":    []any{"/var/lib/kubelet"},
			"file_digests": map[string]any{"/etc/kubernetes/kubelet/ca.crt": resources.Unknown{}, "/etc/kubernetes/kubelet/config.yaml": strings.Repeat("ab", 32)},
			"files":        []any{map[string]any{"path": "/etc/kubernetes/kubelet/kubelet.key", "content": "-----BEGIN PRIVATE KEY-----\n"}},
			"unit":         "[Unit]\nDescription=Kubernetes node agent\n\n[Service]\nExecStart=/usr/local/bin/kubelet \\\n  --hostname-override=" + node + "\nRestart=always\n",
			"health":       "kubectl get node '" + node + "' -o jsonpath='{.status.conditions[?(@.type==\"Ready\")].status}'",
		}
		p.Steps = append(p.Steps, &engine.Step{Change: resources.Change{Addr: `service.kubelet["` + node + `"]`, Kind: "service", Node: node,
			Action: resources.Create, After: after, Reasons: []resources.Reason{{Code: resources.ReasonNew}}}, Sensitive: []string{"files"}})
	}
	return p
}

// renderCost renders p as the human view does (streamed through a
// buffered writer) and returns the allocations and bytes allocated per
// step, and the bytes of text per step.
func renderCost(t testing.TB, p *engine.Plan) (allocs, allocBytes, textBytes float64) {
	var text countWriter
	renderPlan(bufio.NewWriter(&text), p, colorizer(false))
	if strings.Contains(text.s.String(), "PRIVATE KEY") {
		t.Fatal("a sensitive value was rendered")
	}
	steps := float64(len(p.Steps))
	res := testing.Benchmark(func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			w := bufio.NewWriterSize(io.Discard, 64<<10)
			renderPlan(w, p, colorizer(false))
			w.Flush()
		}
	})
	return float64(res.AllocsPerOp()) / steps, float64(res.AllocedBytesPerOp()) / steps, float64(text.n) / steps
}

type countWriter struct {
	n int
	s strings.Builder // the first 64 KB, to look at
}

func (c *countWriter) Write(p []byte) (int, error) {
	c.n += len(p)
	if c.s.Len() < 64<<10 {
		c.s.Write(p)
	}
	return len(p), nil
}

// TestPlanRenderingIsStreamed: rendering a plan costs a few allocations
// per step, whatever the plan's size, and allocates far less than the
// text it writes (the text is streamed, one step at a time, never held
// whole): a cost growing with the plan would fail the comparison of 100
// and 1000 steps.
func TestPlanRenderingIsStreamed(t *testing.T) {
	if testing.Short() {
		t.Skip("renders 1,100 steps a few times")
	}
	smallA, smallB, _ := renderCost(t, createPlan(100))
	allocs, allocBytes, text := renderCost(t, createPlan(1000))
	t.Logf("per step: %.1f allocations (%.1f at 100 steps), %.0f bytes allocated (%.0f), %.0f bytes of text", allocs, smallA, allocBytes, smallB, text)
	if allocs > 2 || allocs > 1.2*smallA+1 {
		t.Errorf("%.1f allocations per step rendered (%.1f at 100 steps), want at most 2 and flat", allocs, smallA)
	}
	if allocBytes > text/8 || allocBytes > 1.2*smallB+64 {
		t.Errorf("%.0f bytes allocated per step (%.0f at 100 steps) for %.0f bytes of text: not streamed", allocBytes, smallB, text)
	}
}

func BenchmarkRenderPlan1000Creates(b *testing.B) {
	p := createPlan(1000)
	b.ReportAllocs()
	for range b.N {
		w := bufio.NewWriterSize(io.Discard, 64<<10)
		renderPlan(w, p, colorizer(false))
		w.Flush()
	}
}
