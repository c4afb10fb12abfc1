package jobrun

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/eggo-project/eggo/controller/api/v1alpha1"
)

// Plan is a plan Job's result.
type Plan struct {
	Hash    string // the saved plan's sha256
	Summary v1alpha1.PlanSummary
	Text    string // `eggo show`: what may be shown
	Saved   []byte // the saved plan file: of a sealed state, sealed whole
	Config  []byte // the configuration it was made from
}

// Publish writes the plan as the ConfigMap <cluster>-plan-<hash12> (hash,
// summary, full text; in the EggoCluster's namespace, owned by it) and
// the Secret of the same name (the saved plan and its configuration; in
// the state namespace, beside the state whose secrets it holds), both
// labelled with the Job. The same plan made again is relabelled with this Job. An
// object of either name that is not eggo's for the EggoCluster is refused
// (checkOwned), unchanged.
func Publish(o Options, p Plan) error {
	cs, err := clientset(o.Kubeconfig)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	summary, err := json.Marshal(p.Summary)
	if err != nil {
		return err
	}
	name := v1alpha1.PlanObjectName(o.Cluster, p.Hash)
	// The Secret first: a ConfigMap the controller finds always has its
	// saved plan published.
	sec := &corev1.Secret{ObjectMeta: objectMeta(o, o.stateNamespace(), name, contentPlan), Type: corev1.SecretTypeOpaque,
		Data: map[string][]byte{v1alpha1.PlanKeyFile: p.Saved, v1alpha1.PlanKeyConfig: p.Config,
			v1alpha1.PlanKeyVars: []byte(strings.Join(o.Vars, "\n"))}}
	if err := secrets(cs, o.stateNamespace()).upsert(ctx, o, sec); err != nil {
		return fmt.Errorf("publishing the saved plan: %w", err)
	}
	cm := &corev1.ConfigMap{ObjectMeta: objectMeta(o, o.Namespace, name, contentPlan), Data: map[string]string{
		v1alpha1.PlanKeyHash: p.Hash, v1alpha1.PlanKeySummary: string(summary), v1alpha1.PlanKeyText: p.Text,
	}}
	if err := configMaps(cs, o.Namespace).upsert(ctx, o, cm); err != nil {
		return fmt.Errorf("publishing the plan: %w", err)
	}
	return nil
}

func typesUID(s string) types.UID { return types.UID(s) }

// clientset: the kubeconfig given, else the Job's ServiceAccount.
func clientset(kubeconfig string) (kubernetes.Interface, error) {
	var cfg *rest.Config
	var err error
	if kubeconfig != "" {
		cfg, err = clientcmd.BuildConfigFromFlags("", kubeconfig)
	} else {
		cfg, err = rest.InClusterConfig()
	}
	if err != nil {
		return nil, err
	}
	return kubernetes.NewForConfig(cfg)
}
