package jobrun

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/eggo-project/eggo/controller/api/v1alpha1"
)

// contentPlan is the eggo.io/content label of a published plan's objects.
const contentPlan = "plan"

// planSelector selects the EggoCluster's published plans' objects.
func planSelector(o Options) metav1.ListOptions {
	return metav1.ListOptions{LabelSelector: labels.Set{v1alpha1.LabelCluster: o.Cluster, v1alpha1.LabelContent: contentPlan}.String()}
}

// DeleteSuperseded deletes the EggoCluster's published plans but plan
// hash's: a saved plan holds what the state holds, and only the current
// one is kept. Secrets go first (they hold the saved plans), then
// ConfigMaps, each checked to be eggo's for the EggoCluster and deleted
// on condition that it is still what was listed. A foreign object
// carrying the labels, and one changed since it was listed, are left,
// named in a warning on stderr; the next plan deletes an eggo one.
func DeleteSuperseded(o Options, hash string, stderr io.Writer) error {
	cs, err := clientset(o.Kubeconfig)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	keep := v1alpha1.PlanObjectName(o.Cluster, hash)
	return errors.Join(
		supersede(ctx, secrets(cs, o.stateNamespace()), o, keep, stderr),
		supersede(ctx, configMaps(cs, o.Namespace), o, keep, stderr))
}

func supersede[T metav1.Object](ctx context.Context, s store[T], o Options, keep string, stderr io.Writer) error {
	return prune(ctx, s, o, planSelector(o), func(name string) bool { return name == keep }, "superseded plan", stderr)
}

// prune deletes the objects sel lists but those kept, each checked to be
// eggo's for the EggoCluster and deleted on condition that it is still
// what was listed; what names them in messages ("superseded plan").
func prune[T metav1.Object](ctx context.Context, s store[T], o Options, sel metav1.ListOptions, kept func(string) bool, what string, stderr io.Writer) error {
	items, err := s.list(ctx, sel)
	if err != nil {
		return fmt.Errorf("listing the %ss' %ss: %w", what, s.kind, err)
	}
	var errs []error
	for _, it := range items {
		if kept(it.GetName()) {
			continue
		}
		err := s.deleteOwned(ctx, o, it)
		var foreign *ForeignError
		switch {
		case errors.As(err, &foreign):
			fmt.Fprintf(stderr, "warning: a %s's object is left: %v\n", what, err)
		case apierrors.IsConflict(err):
			fmt.Fprintf(stderr, "warning: the %s's %s %s/%s changed since it was listed: not deleted (the next run deletes it)\n",
				what, s.kind, it.GetNamespace(), it.GetName())
		case err != nil:
			errs = append(errs, fmt.Errorf("deleting the %s's %s %s: %w", what, s.kind, it.GetName(), err))
		default:
			fmt.Fprintf(stderr, "deleted the %s's %s %s\n", what, s.kind, it.GetName())
		}
	}
	return errors.Join(errs...)
}

// clientKubeconfigSelector lists the EggoCluster's published client
// kubeconfigs.
func clientKubeconfigSelector(o Options) metav1.ListOptions {
	return metav1.ListOptions{LabelSelector: labels.Set{v1alpha1.LabelCluster: o.Cluster, v1alpha1.LabelContent: contentClientKubeconfig}.String()}
}

// reuseSavedPlan puts the EggoCluster's current saved plan, when it is
// sealed, where eggo plan will save the new one. age seals under a fresh
// key every time, but eggo keeps a sealed plan file as it is when the
// identity opens it to the very plan it saves: the same plan made again
// is then the same file, and has the same hash (see runPlan). Only an
// eggo plan file of an object that is eggo's for the EggoCluster is put
// there; it is best effort: a failure is a warning, and the plan is
// sealed anew.
func reuseSavedPlan(o Options, stderr io.Writer) {
	if o.Identity == "" {
		return // eggo could not open it to compare
	}
	if err := putCurrentPlan(o); err != nil {
		fmt.Fprintln(stderr, "warning: the current saved plan was not reused:", err)
	}
}

func putCurrentPlan(o Options) error {
	cs, err := clientset(o.Kubeconfig)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	items, err := secrets(cs, o.stateNamespace()).list(ctx, planSelector(o))
	if err != nil {
		return err
	}
	var current *corev1.Secret
	for _, s := range items {
		if missing(o, s) == "" && (current == nil || current.CreationTimestamp.Before(&s.CreationTimestamp)) {
			current = s
		}
	}
	if current == nil || !isSealedPlan(current.Data[v1alpha1.PlanKeyFile]) {
		return nil
	}
	return os.WriteFile(filepath.Join(o.WorkDir, planFile), current.Data[v1alpha1.PlanKeyFile], 0o600)
}

// isSealedPlan reports whether data is a sealed eggo plan file: the
// envelope engine's SavePlan writes for a plan of a sealed state
// (format_version, sealed_plan), which `eggo plan -out` may replace.
func isSealedPlan(data []byte) bool {
	var pf struct {
		FormatVersion int    `json:"format_version"`
		SealedPlan    []byte `json:"sealed_plan"`
	}
	return json.Unmarshal(data, &pf) == nil && pf.FormatVersion > 0 && len(pf.SealedPlan) > 0
}

// fetchPlan reads the saved plan's Secret the apply Job applies, from the
// state namespace, when it is eggo's for the EggoCluster.
func fetchPlan(o Options) (map[string][]byte, error) {
	cs, err := clientset(o.Kubeconfig)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	name := v1alpha1.PlanObjectName(o.Cluster, o.PlanHash)
	s, err := cs.CoreV1().Secrets(o.stateNamespace()).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("the saved plan's Secret %s/%s: %w", o.stateNamespace(), name, err)
	}
	if err := checkOwned(o, "Secret", s, "applied"); err != nil {
		return nil, err
	}
	return s.Data, nil
}

// DeleteLeftovers deletes, after a destroy, what the cluster's Jobs left
// in the state namespace: every saved plan and the access Secrets of a
// cluster that is gone. Each is checked to be eggo's for the EggoCluster;
// a foreign one is left, named in a warning.
func DeleteLeftovers(o Options, stderr io.Writer) error {
	cs, err := clientset(o.Kubeconfig)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	api := secrets(cs, o.stateNamespace())
	errs := []error{supersede(ctx, api, o, "", stderr),
		prune(ctx, api, o, clientKubeconfigSelector(o), func(string) bool { return false }, "client kubeconfig", stderr)}
	for _, name := range []string{v1alpha1.KubeconfigSecretName(o.Cluster), v1alpha1.CASecretName(o.Cluster)} {
		cur, err := api.api.Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			continue
		}
		if err == nil {
			err = api.deleteOwned(ctx, o, cur)
		}
		var foreign *ForeignError
		if errors.As(err, &foreign) {
			fmt.Fprintln(stderr, "warning:", err)
			continue
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("deleting the Secret %s: %w", name, err))
		}
	}
	return errors.Join(errs...)
}
