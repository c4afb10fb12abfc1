package kubestate

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// inClusterNamespaceFile is where a pod finds its own namespace.
const inClusterNamespaceFile = "/var/run/secrets/kubernetes.io/serviceaccount/namespace"

// source is how the backend reaches the cluster, resolved once.
type source struct {
	rest      *rest.Config
	namespace string
	what      string // for messages: "kubeconfig FILE (context X)" or "the pod's service account"
}

// NamespaceEnv names the state's namespace when the backend block names
// none, before the kubeconfig context's (in a pod: before the pod's own),
// as Terraform's kubernetes backend reads it. The GitOps controller's Jobs
// get it set to the namespace the platform admin gave their state.
const NamespaceEnv = "KUBE_NAMESPACE"

// resolve finds the cluster the way kubectl does, except that in a pod
// with no kubeconfig or context named, the pod's service account wins
// (the GitOps controller's Jobs run there).
func (c Config) resolve() (source, error) {
	if c.Namespace == "" {
		if env := os.Getenv(NamespaceEnv); env != "" {
			if why := ValidateNamespace(env); why != "" {
				return source{}, fmt.Errorf("kubernetes backend: $%s: %s", NamespaceEnv, why)
			}
			c.Namespace = env
		}
	}
	if c.Kubeconfig == "" && c.Context == "" && os.Getenv("KUBERNETES_SERVICE_HOST") != "" {
		rc, err := rest.InClusterConfig()
		if err != nil {
			return source{}, fmt.Errorf("kubernetes backend: the pod's service account: %w", err)
		}
		ns := c.Namespace
		if ns == "" {
			ns = "default"
			if b, err := os.ReadFile(inClusterNamespaceFile); err == nil && strings.TrimSpace(string(b)) != "" {
				ns = strings.TrimSpace(string(b))
			}
		}
		return source{rest: tune(rc), namespace: ns, what: "the pod's service account"}, nil
	}
	rules := clientcmd.NewDefaultClientConfigLoadingRules() // $KUBECONFIG, else ~/.kube/config
	if c.Kubeconfig != "" {
		rules.ExplicitPath = c.Kubeconfig
	}
	what := "kubeconfig " + strings.Join(rules.GetLoadingPrecedence(), ":")
	if c.Kubeconfig != "" {
		what = "kubeconfig " + c.Kubeconfig
	}
	if c.Context != "" {
		what += " (context " + c.Context + ")"
	}
	cc := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{CurrentContext: c.Context})
	rc, err := cc.ClientConfig()
	if err != nil {
		if clientcmd.IsEmptyConfig(err) {
			return source{}, errors.New(`kubernetes backend: no kubeconfig found: name one with kubeconfig = "…" in the backend block, set KUBECONFIG, or create ~/.kube/config`)
		}
		return source{}, fmt.Errorf("kubernetes backend: %s: %w", what, err)
	}
	ns := c.Namespace
	if ns == "" {
		if ns, _, err = cc.Namespace(); err != nil {
			return source{}, fmt.Errorf("kubernetes backend: %s: %w", what, err)
		}
	}
	return source{rest: tune(rc), namespace: ns, what: what}, nil
}

// tune sets what every request of the backend shares: protobuf (a state
// of megabytes is not base64 in JSON), no client-side throttling for a
// burst of chunks, server warnings kept off eggo's output.
func tune(rc *rest.Config) *rest.Config {
	rc = rest.CopyConfig(rc)
	rc.ContentType = runtime.ContentTypeProtobuf
	rc.AcceptContentTypes = runtime.ContentTypeProtobuf + "," + runtime.ContentTypeJSON
	rc.QPS, rc.Burst = 50, 100
	rc.WarningHandler = rest.NoWarnings{}
	rc.UserAgent = "eggo"
	return rc
}
