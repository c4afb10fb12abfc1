package certs

import (
	"context"
	"slices"
	"testing"

	"github.com/eggo-project/eggo/resources"
)

// TestNoOpCertPlanMakesNoRecord: a certificate that keeps its record is
// compared with the config as the record would be (without ca_key), but
// the record is not made: a plan of a thousand certificates made one
// each to compare and drop, and the kind's schema, made once now. The
// recorded certificate is still parsed (most of the rest: 116
// allocations; 120 with a schema each, 123 with the record too), and the
// attributes said to change are resources.ChangedAttrs's of the record.
func TestNoOpCertPlanMakesNoRecord(t *testing.T) {
	w := newPKIWorld(t)
	c := pkiCluster()
	w.apply(c)
	ds, err := w.cert.Expand(c)
	if err != nil {
		t.Fatal(err)
	}
	d := ds[0]
	d.Attrs = resources.Substitute(d.Attrs, func(r resources.Ref) any { return w.state[r.Addr].Attrs[r.Attr] }).(resources.Attrs)
	prior := w.state[d.Addr]
	ctx := context.Background()
	allocs := testing.AllocsPerRun(20, func() {
		if ch, err := w.cert.Plan(ctx, w.rc, prior, d); err != nil || ch.Action != resources.NoOp {
			t.Fatalf("%s: %s %v %v", d.Addr, ch.Action, ch.Reasons, err)
		}
	})
	t.Logf("%.0f allocations per no-op certificate plan", allocs)
	if allocs > 117 {
		t.Errorf("%.0f allocations to plan a certificate that keeps its record: want at most 117", allocs)
	}

	schema := w.cert.Schema()
	changed := resources.Attrs{}
	for k, v := range d.Attrs {
		changed[k] = v
	}
	changed[certCommonName], changed["extra"] = "other", "x"
	withKey := resources.Attrs{certCAKey: "old key"}
	for k, v := range prior.Attrs {
		withKey[k] = v
	}
	for _, tc := range []struct{ prior, desired resources.Attrs }{{prior.Attrs, d.Attrs}, {prior.Attrs, changed}, {withKey, d.Attrs}, {nil, d.Attrs}} {
		got, want := recordChanges(schema, tc.prior, tc.desired), resources.ChangedAttrs(schema, tc.prior, certRecordable(tc.desired))
		if !slices.Equal(got, want) {
			t.Errorf("recordChanges = %v, ChangedAttrs of the record %v", got, want)
		}
	}
}
