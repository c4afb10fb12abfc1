package kubestate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// KUBE_NAMESPACE names the namespace when the backend block names none;
// a namespace in the block wins, and a bad value is refused, named.
func TestNamespaceFromTheEnvironment(t *testing.T) {
	kc := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(kc, []byte(`apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]
users: [{name: u, user: {token: x}}]
contexts: [{name: ctx, context: {cluster: c, user: u, namespace: from-context}}]
current-context: ctx
`), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("KUBERNETES_SERVICE_HOST", "")
	for _, tc := range []struct{ env, block, want, err string }{
		{"", "", "from-context", ""},
		{"from-env", "", "from-env", ""},
		{"from-env", "from-block", "from-block", ""},
		{"Not_A_Namespace", "", "", "$KUBE_NAMESPACE"},
	} {
		t.Setenv(NamespaceEnv, tc.env)
		src, err := Config{Kubeconfig: kc, Namespace: tc.block, Cluster: "demo"}.resolve()
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("env %q: error %v, want one naming %s", tc.env, err, tc.err)
			}
		case err != nil:
			t.Errorf("env %q block %q: %v", tc.env, tc.block, err)
		case src.namespace != tc.want:
			t.Errorf("env %q block %q: namespace %q, want %q", tc.env, tc.block, src.namespace, tc.want)
		}
	}
}
