package kubestate

import (
	"errors"
	"testing"

	coordv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestOwned: the one check before every read, write and delete names the
// object and everything about it that is not eggo's; it needs no server.
func TestOwned(t *testing.T) {
	s := &Store{cfg: Config{Cluster: "demo"}, src: source{namespace: "clusters"}}
	secret := func(name string, typ corev1.SecretType, labels map[string]string) *corev1.Secret {
		return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}, Type: typ}
	}
	for _, tc := range []struct {
		name     string
		obj      metav1.Object
		part     string
		refusing string
		want     string // "": eggo's
	}{
		{"eggo's head", secret("eggo-state-demo", secretType, s.labels(partHead)), partHead, toRead, ""},
		{"eggo's chunk", secret("eggo-state-demo-0123456789ab-0", secretType, s.labels(partChunk)), partChunk, toDelete, ""},
		{"eggo's Lease", &coordv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: "eggo-lock-demo", Labels: s.labels(partLock)}}, partLock, toTakeOver, ""},
		{"someone's Secret at the head's name", secret("eggo-state-demo", corev1.SecretTypeOpaque, nil), partHead, toOverwrite,
			"kubernetes backend: Secret clusters/eggo-state-demo exists but is not eggo's state for cluster demo (type Opaque, want eggo.io/state; " +
				"no label app.kubernetes.io/managed-by, want app.kubernetes.io/managed-by=eggo; no label eggo.io/cluster, want eggo.io/cluster=demo; " +
				"no label eggo.io/state-part, want eggo.io/state-part=head): refusing to overwrite it"},
		{"a head that lost its labels", secret("eggo-state-demo", secretType, map[string]string{labelCluster: "other"}), partHead, toRead,
			"kubernetes backend: Secret clusters/eggo-state-demo exists but is not eggo's state for cluster demo (" +
				"no label app.kubernetes.io/managed-by, want app.kubernetes.io/managed-by=eggo; label eggo.io/cluster=other, want demo; " +
				"no label eggo.io/state-part, want eggo.io/state-part=head): refusing to read it as this cluster's state, or as no state; " +
				"if it is this cluster's state and lost its labels, label it again: kubectl -n clusters label --overwrite secret eggo-state-demo " +
				"app.kubernetes.io/managed-by=eggo eggo.io/cluster=demo eggo.io/state-part=head"},
		{"a head labelled a chunk", secret("eggo-state-demo", secretType, s.labels(partChunk)), partHead, toRead,
			"(label eggo.io/state-part=chunk, want head)"},
		{"someone's Secret with the chunks' labels", secret("app-config", corev1.SecretTypeOpaque, s.labels(partChunk)), partChunk, toDelete,
			"kubernetes backend: Secret clusters/app-config exists but is not eggo's state chunk for cluster demo (type Opaque, want eggo.io/state; " +
				"name app-config, want eggo-state-demo-DIGEST12-I): refusing to delete it"},
		{"the head labelled a chunk", secret("eggo-state-demo", secretType, s.labels(partChunk)), partChunk, toDelete,
			"(name eggo-state-demo, want eggo-state-demo-DIGEST12-I)"},
		{"someone's Lease at the lock's name", &coordv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: "eggo-lock-demo",
			Labels: map[string]string{labelManagedBy: "helm"}}}, partLock, toTakeOver,
			"kubernetes backend: Lease clusters/eggo-lock-demo exists but is not eggo's lock for cluster demo (label app.kubernetes.io/managed-by=helm, want eggo; " +
				"no label eggo.io/cluster, want eggo.io/cluster=demo; no label eggo.io/state-part, want eggo.io/state-part=lock): refusing to take it over"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := s.owned(tc.obj, tc.part, tc.refusing)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("eggo's own object refused: %v", err)
				}
				return
			}
			var foreign *ForeignError
			if !errors.As(err, &foreign) {
				t.Fatalf("owned = %v, want a *ForeignError", err)
			}
			if tc.want[0] == '(' {
				wantIn(t, err.Error(), tc.want)
			} else if err.Error() != tc.want {
				t.Fatalf("owned =\n%s\nwant\n%s", err, tc.want)
			}
		})
	}
}

func TestIsChunkName(t *testing.T) {
	s := &Store{cfg: Config{Cluster: "demo"}}
	for name, want := range map[string]bool{
		"eggo-state-demo-0123456789ab-0":     true,
		"eggo-state-demo-0123456789ab-12":    true,
		"eggo-state-demo":                    false,
		"eggo-state-demo-0123456789ab":       false,
		"eggo-state-demo-0123456789ab-":      false,
		"eggo-state-demo-0123456789ab-01":    false,
		"eggo-state-demo-0123456789AB-0":     false,
		"eggo-state-demo-0123456789a-0":      false,
		"eggo-state-demo-x-0123456789ab-0":   false,
		"eggo-state-demo2-0123456789ab-0":    false,
		"eggo-state-demo-0123456789ab-0-1":   false,
		"app-eggo-state-demo-0123456789ab-0": false,
	} {
		if got := s.isChunkName(name); got != want {
			t.Errorf("isChunkName(%q) = %v, want %v", name, got, want)
		}
	}
}
