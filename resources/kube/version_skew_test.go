package kube

import (
	"errors"
	"strings"
	"testing"

	"github.com/eggo-project/eggo/resources"
)

// TestVersionSkew: from the versions the cluster runs, a plan may go up one
// minor or change a patch either way; a skipped minor is refused with the
// steps to take, a minor down is refused, both at kubernetes_version's line.
func TestVersionSkew(t *testing.T) {
	at := resources.SourceRange{Filename: "main.hcl", Start: resources.Pos{Line: 2}, End: resources.Pos{Line: 2}}
	for _, tt := range []struct {
		oldest, newest, want string
		refuse               []string
	}{
		{"", "", "1.37.2", nil}, // a new cluster
		{"1.31.4", "1.31.4", "1.31.4", nil},
		{"1.31.4", "1.31.4", "1.31.3", nil}, // a patch back
		{"1.31.4", "1.31.4", "1.32.0", nil},
		{"1.36.5", "1.36.5", "1.37.2", nil},
		{"1.31.4", "1.31.4", "1.33.1", []string{"the cluster runs 1.31.4", "asks for 1.33.1", "Apply the newest 1.32 release first, then 1.33.1."}},
		{"1.31.4", "1.31.4", "1.36.5", []string{"Apply the newest release of 1.32, 1.33, 1.34 and 1.35 in turn, then 1.36.5."}},
		{"1.33.2", "1.33.2", "1.32.9", []string{"cannot go back a minor version", "Keep a 1.33 release"}},
		// An upgrade that stopped midway: finish it, do not skip past its start.
		{"1.31.4", "1.32.1", "1.32.2", nil},
		{"1.31.4", "1.32.1", "1.33.0", []string{"the cluster runs 1.31.4 and 1.32.1 (an upgrade stopped midway)", "Apply the newest 1.32 release first"}},
		{"1.31.4", "1.32.1", "1.31.4", []string{"cannot go back a minor version"}},
		{"1.31.4", "1.31.4", "2.0.0", []string{"another major version"}},
	} {
		c := &resources.Cluster{KubernetesVersion: tt.want, RecordedKubernetes: resources.VersionSpan{Oldest: tt.oldest, Newest: tt.newest},
			Ranges: resources.SourceRanges{Block: at, Attrs: map[string]resources.SourceRange{"kubernetes_version": at}}}
		err := checkVersionSkew(c)
		name := tt.oldest + "/" + tt.newest + " → " + tt.want
		if tt.refuse == nil {
			if err != nil {
				t.Errorf("%s: refused: %v", name, err)
			}
			continue
		}
		var se *resources.SourceError
		if !errors.As(err, &se) || se.Range != at {
			t.Errorf("%s: %v, want an error at kubernetes_version's line", name, err)
			continue
		}
		for _, w := range tt.refuse {
			if !strings.Contains(se.Detail, w) {
				t.Errorf("%s: %q lacks %q", name, se.Detail, w)
			}
		}
	}
}

// TestRecallKubernetesVersions: the span comes from the Kubernetes
// components' records; etcd's and containerd's, which name their own
// programs, do not count, and "1.31.10" is newer than "1.31.9".
func TestRecallKubernetesVersions(t *testing.T) {
	objs := []resources.Object{
		{Kind: "service", Attrs: resources.Attrs{svcVersion: "1.31.9"}},
		{Kind: "service", Attrs: resources.Attrs{svcVersion: "etcd sha256:0123456789abcdef"}},
		{Kind: "service", Attrs: resources.Attrs{svcVersion: "1.31.10"}},
		{Kind: "service", Attrs: resources.Attrs{}},
	}
	c := &resources.Cluster{}
	RecallKubernetesVersions(c, func(kind string) []resources.Object {
		if kind == "service" {
			return objs
		}
		return nil
	})
	if want := (resources.VersionSpan{Oldest: "1.31.9", Newest: "1.31.10"}); c.RecordedKubernetes != want {
		t.Errorf("recalled %+v, want %+v", c.RecordedKubernetes, want)
	}
}
