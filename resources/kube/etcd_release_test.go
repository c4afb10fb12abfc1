package kube

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/eggo-project/eggo/resources"
)

// bundleWith is a bundle whose program (a bundle path) has content and
// was built from source, as its MANIFEST says (no MANIFEST for "").
func bundleWith(t *testing.T, program, content, source string) string {
	t.Helper()
	dir := writeBundle(t, map[string]string{program: content})
	if source != "" {
		line := "# from: amd64/" + program + " " + source + "\n"
		if err := os.WriteFile(filepath.Join(dir, "MANIFEST"), []byte(line), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// etcdBundle is a bundle whose etcd is release rel, as its MANIFEST says
// (rel "" for a bundle without a word of it).
func etcdBundle(t *testing.T, rel string) string {
	t.Helper()
	source := ""
	if rel != "" {
		source = "go.etcd.io/etcd/server/v3@v" + rel
	}
	return bundleWith(t, etcdProgram, "etcd "+rel, source)
}

// etcdReview is the review of the plan that moves the members of a
// cluster made with the from bundle to the to bundle.
func etcdReview(t *testing.T, from, to string) resources.PlanReview {
	t.Helper()
	before, err := (EtcdMember{}).Expand(upgradeCluster("1.36.5", from))
	if err != nil {
		t.Fatal(err)
	}
	after, err := (EtcdMember{}).Expand(upgradeCluster("1.37.2", to))
	if err != nil {
		t.Fatal(err)
	}
	var r resources.PlanReview
	for i, d := range after {
		prior := recorded(before[i], nil)
		r.Recorded = append(r.Recorded, *prior)
		ch, err := (EtcdMember{}).Plan(context.Background(), nil, prior, d)
		if err != nil {
			t.Fatal(err)
		}
		r.Changes = append(r.Changes, ch)
	}
	return r
}

// TestEtcdMovesOneMinorAtATime: a plan may move etcd to the next minor
// release, not past it, and not back; the releases come from the bundle's
// MANIFEST, and a member recorded without one gets a warning.
func TestEtcdMovesOneMinorAtATime(t *testing.T) {
	for _, tc := range []struct {
		name, from, to string
		err            []string // the error says these; none: no error
		warn           string
	}{
		{name: "the next minor", from: "3.5.24", to: "3.6.8"},
		{name: "a patch", from: "3.6.6", to: "3.6.8"},
		{name: "two minors at once", from: "3.4.23", to: "3.6.8", err: []string{"etcd_member.", "one minor release at a time", "etcd 3.6.8", "runs etcd 3.4.23", "whose etcd is 3.5 first"}},
		{name: "three minors at once", from: "3.4.23", to: "3.7.0", err: []string{"whose etcd is 3.5 and then 3.6 first"}},
		{name: "back a minor", from: "3.7.0", to: "3.6.8", err: []string{"cannot go back a minor release", "runs etcd 3.7.0", EtcdSnapshotDir}},
		{name: "recorded without its release", from: "", to: "3.6.8", warn: "eggo cannot tell which etcd release etcd_member.e0, etcd_member.m0 run"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := etcdReview(t, etcdBundle(t, tc.from), etcdBundle(t, tc.to))
			for _, ch := range r.Changes {
				if ch.Action != resources.Update || !strings.Contains(reasonText(ch), "etcd "+tc.to+" sha256:") {
					t.Fatalf("%s: %s (%s), want an update to etcd %s", ch.Addr, ch.Action, reasonText(ch), tc.to)
				}
			}
			warnings, err := (EtcdMember{}).CheckPlan(r)
			switch {
			case len(tc.err) == 0 && err != nil:
				t.Fatalf("refused: %v", err)
			case len(tc.err) > 0 && err == nil:
				t.Fatalf("not refused; want an error saying %q", tc.err)
			}
			for _, w := range tc.err {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("the error does not say %q: %v", w, err)
				}
			}
			if got := strings.Join(warnings, "\n"); (tc.warn == "") != (got == "") || !strings.Contains(got, tc.warn) {
				t.Errorf("warnings %q, want %q", got, tc.warn)
			}
		})
	}
}

// TestEtcdReleaseAloneRestartsNothing: a member recorded before eggo wrote
// the release into the version ("etcd sha256:…") runs the same program as
// the bundle's when the digest is the same: nothing to do.
func TestEtcdReleaseAloneRestartsNothing(t *testing.T) {
	bundle := etcdBundle(t, "3.6.8")
	ds, err := (EtcdMember{}).Expand(upgradeCluster("1.36.5", bundle))
	if err != nil {
		t.Fatal(err)
	}
	d := ds[0]
	v := resources.AttrString(d.Attrs[svcVersion])
	if !strings.HasPrefix(v, "etcd 3.6.8 sha256:") {
		t.Fatalf("version %q, want etcd 3.6.8 sha256:…", v)
	}
	prior := recorded(d, nil)
	prior.Attrs[svcVersion] = "etcd " + programDigest(v) // the older record's form
	ch, err := (EtcdMember{}).Plan(context.Background(), nil, prior, d)
	if err != nil {
		t.Fatal(err)
	}
	if ch.Action != resources.NoOp {
		t.Errorf("%s (%s), want nothing to do", ch.Action, reasonText(ch))
	}
}
