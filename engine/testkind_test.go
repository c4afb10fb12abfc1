package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/eggo-project/eggo/providers"
	"github.com/eggo-project/eggo/resources"
)

// testKind is a test-only resource kind whose "host" is a directory: one
// JSON file per resource. Desired attributes drive fault injection:
// fail (error after doing nothing), fail_after (error after writing),
// hang (block until cancelled), panic, sleep_ms.
type testKind struct {
	dir  string
	name string // "test" when empty; "host" stands in for the host kind in hook tests

	mu  sync.Mutex
	ops []string // "create test.a", in call order
}

func newTestKind(dir string) *testKind { return &testKind{dir: dir} }

func (k *testKind) Name() string {
	if k.name != "" {
		return k.name
	}
	return "test"
}

func (k *testKind) Schema() resources.Schema {
	return resources.Schema{Attributes: map[string]resources.AttrSchema{
		"value":  {Description: "any value"},
		"secret": {Sensitive: true},
	}}
}

func (k *testKind) Expand(*resources.Cluster) ([]resources.Desired, error) { return nil, nil }

func (k *testKind) file(addr string) string { return filepath.Join(k.dir, addr+".json") }

func (k *testKind) record(op, addr string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.ops = append(k.ops, op+" "+addr)
}

func (k *testKind) opsOf(op string) []string {
	k.mu.Lock()
	defer k.mu.Unlock()
	var out []string
	for _, o := range k.ops {
		if len(o) > len(op) && o[:len(op)+1] == op+" " {
			out = append(out, o[len(op)+1:])
		}
	}
	return out
}

func (k *testKind) Read(_ context.Context, _ *resources.RunContext, prior resources.Object) (resources.Attrs, []resources.Reason, error) {
	k.record("read", prior.Addr)
	data, err := os.ReadFile(k.file(prior.Addr))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	var live resources.Attrs
	if err := json.Unmarshal(data, &live); err != nil {
		return nil, nil, err
	}
	if !resources.Equal(live["value"], prior.Attrs["value"]) {
		return live, []resources.Reason{{Code: resources.ReasonDrift, Detail: "value"}}, nil
	}
	return live, nil, nil
}

func (k *testKind) Plan(_ context.Context, _ *resources.RunContext, prior *resources.Object, d resources.Desired) (resources.Change, error) {
	ch := resources.Change{Addr: d.Addr, Kind: d.Kind, Node: d.Node, After: d.Attrs}
	switch {
	case prior == nil:
		ch.Action = resources.Create
		ch.Reasons = []resources.Reason{{Code: resources.ReasonNew}}
		// "join": a create that joins a running group (an etcd member
		// added to a running cluster) rolls like an update.
		ch.Rolling = d.Attrs["join"] == true
	case prior.Pending:
		ch.Action = resources.Update
		ch.Before = prior.Attrs
		ch.Reasons = []resources.Reason{{Code: resources.ReasonPending}}
	case !resources.Equal(map[string]any(prior.Attrs), map[string]any(d.Attrs)):
		ch.Action = resources.Update
		ch.Before = prior.Attrs
		ch.Changed = resources.ChangedAttrs(k.Schema(), prior.Attrs, d.Attrs)
		ch.Reasons = []resources.Reason{{Code: resources.ReasonConfig}}
		if d.Attrs["upgrade"] == true {
			ch.Reasons = []resources.Reason{{Code: resources.ReasonUpgrade}}
		}
	default:
		ch.Action = resources.NoOp
		ch.Before = prior.Attrs
	}
	return ch, nil
}

func (k *testKind) act(ctx context.Context, op string, d resources.Desired) (resources.Attrs, error) {
	k.record(op, d.Addr)
	if ms, ok := d.Attrs["sleep_ms"].(float64); ok {
		select {
		case <-time.After(time.Duration(ms) * time.Millisecond):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if d.Attrs["panic"] == true {
		panic("injected panic in " + d.Addr)
	}
	if d.Attrs["hang"] == true {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	if d.Attrs["fail"] == true {
		return nil, fmt.Errorf("injected failure on %s", d.Addr)
	}
	// Atomic like a real kind's copy (temp file, rename): a kill -9 must
	// not leave a half-written resource behind.
	data, _ := json.Marshal(d.Attrs)
	tmp := k.file(d.Addr) + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return nil, err
	}
	if err := os.Rename(tmp, k.file(d.Addr)); err != nil {
		return nil, err
	}
	if d.Attrs["fail_after"] == true {
		return d.Attrs, fmt.Errorf("injected failure after writing %s", d.Addr)
	}
	return d.Attrs, nil
}

func (k *testKind) Create(ctx context.Context, _ *resources.RunContext, d resources.Desired, _ resources.Change) (resources.Attrs, error) {
	return k.act(ctx, "create", d)
}

func (k *testKind) Update(ctx context.Context, _ *resources.RunContext, _ resources.Object, d resources.Desired, _ resources.Change) (resources.Attrs, error) {
	return k.act(ctx, "update", d)
}

func (k *testKind) Delete(_ context.Context, _ *resources.RunContext, prior resources.Object) (resources.Attrs, error) {
	k.record("delete", prior.Addr)
	if prior.Attrs["unreachable"] == true {
		return prior.Attrs, fmt.Errorf("deleting %s: %w", prior.Addr, &providers.UnreachableError{Host: "n-dead", Err: fmt.Errorf("dial tcp: no route to host")})
	}
	if prior.Attrs["fail_delete"] == true {
		return prior.Attrs, fmt.Errorf("injected delete failure on %s", prior.Addr)
	}
	if err := os.Remove(k.file(prior.Addr)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return prior.Attrs, err
	}
	return nil, nil
}

// world lists the resources present on the test "host".
func (k *testKind) world() []string {
	entries, _ := os.ReadDir(k.dir)
	var out []string
	for _, e := range entries {
		if filepath.Ext(e.Name()) != ".json" {
			continue
		}
		out = append(out, e.Name()[:len(e.Name())-len(".json")])
	}
	sort.Strings(out)
	return out
}

// desired builds a test resource.
func desired(addr string, attrs resources.Attrs, deps ...string) resources.Desired {
	if attrs == nil {
		attrs = resources.Attrs{}
	}
	return resources.Desired{Addr: addr, Kind: "test", Node: "n-" + addr[len("test."):], Attrs: attrs, DependsOn: deps}
}
