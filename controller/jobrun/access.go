package jobrun

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/eggo-project/eggo/command/jsonmsg"
	"github.com/eggo-project/eggo/controller/api/v1alpha1"
)

// adminKubeconfigAddr is the state address of the admin kubeconfig the
// eggo CLI writes beside its state (resources/certs' kubeconfig kind,
// certs.KubeconfigAdminAddr; jobrun runs eggo as a program and imports
// none of its packages but its -json contract, command/jsonmsg); a
// certificates block's client NAME has kubeconfig.client["NAME"]
// (certs.KubeconfigClientAddr).
const (
	adminKubeconfigAddr   = "kubeconfig.admin"
	clientKubeconfigStart = `kubeconfig.client["`
)

// Access is what an apply publishes for the workload cluster's users.
type Access struct {
	Kubeconfig []byte // the admin kubeconfig eggo wrote (it holds the admin key)
	CACert     []byte // the cluster CA's certificate (PEM); never a key
	// Clients are the kubeconfigs of the configuration's client
	// certificates (certificates { client "NAME" }), by NAME: Cluster
	// API's control plane hands its client's to Cluster API, never the
	// admin's.
	Clients map[string][]byte
}

// kubeconfigRecord is what the state records of a kubeconfig eggo wrote:
// its client ("" for the admin's), file (relative to the run's
// directory), sha256 and the CA certificate it embeds.
type kubeconfigRecord struct{ client, path, sum, ca string }

// secretName is the Secret the record's kubeconfig is published as.
func (r kubeconfigRecord) secretName(cluster string) string {
	if r.client == "" {
		return v1alpha1.KubeconfigSecretName(cluster)
	}
	return v1alpha1.ClientKubeconfigSecretName(cluster, r.client)
}

// kubeconfigRecordsOf are the state's kubeconfigs, the admin's first. A
// state without one (no master) gives none.
func kubeconfigRecordsOf(workDir string, show []byte) ([]kubeconfigRecord, error) {
	var doc jsonmsg.State
	if !bytes.HasPrefix(bytes.TrimSpace(show), []byte("{")) {
		return nil, nil // no state
	}
	if err := json.Unmarshal(show, &doc); err != nil {
		return nil, fmt.Errorf("eggo show -json: %v", err)
	}
	var out []kubeconfigRecord
	for _, r := range doc.Resources {
		client, ok := "", r.Address == adminKubeconfigAddr
		if name, isClient := strings.CutPrefix(r.Address, clientKubeconfigStart); isClient {
			client, ok = strings.TrimSuffix(name, `"]`), true
		}
		if !ok {
			continue
		}
		rel, _ := r.Attributes["path"].(string)
		sum, _ := r.Attributes["sha256"].(string)
		ca, _ := r.Attributes["ca"].(string)
		if rel == "" || sum == "" || ca == "" {
			return nil, fmt.Errorf("the state's %s has no path, sha256 or ca", r.Address)
		}
		path := rel
		if !filepath.IsAbs(path) {
			path = filepath.Join(workDir, rel)
		}
		rec := kubeconfigRecord{client: client, path: path, sum: sum, ca: ca}
		if client == "" {
			out = append([]kubeconfigRecord{rec}, out...)
		} else {
			out = append(out, rec)
		}
	}
	return out, nil
}

// adminRecordOf is the state's admin kubeconfig record, nil without one.
func adminRecordOf(workDir string, show []byte) (*kubeconfigRecord, error) {
	recs, err := kubeconfigRecordsOf(workDir, show)
	if err != nil || len(recs) == 0 || recs[0].client != "" {
		return nil, err
	}
	return &recs[0], nil
}

// accessFromState finds the kubeconfigs eggo apply wrote, read as eggo
// wrote them, and returns them only when each one's sha256 is the one
// the state recorded. A cluster without a master has none: nil, no error.
func accessFromState(workDir string, show []byte) (*Access, error) {
	recs, err := kubeconfigRecordsOf(workDir, show)
	if err != nil || len(recs) == 0 || recs[0].client != "" {
		return nil, err
	}
	a := &Access{CACert: []byte(recs[0].ca)}
	for _, rec := range recs {
		data, err := os.ReadFile(rec.path)
		if err != nil {
			return nil, fmt.Errorf("the kubeconfig eggo wrote: %v", err)
		}
		if hashOf(data) != rec.sum {
			return nil, fmt.Errorf("the kubeconfig %s is not the one the state records (sha256 differs)", filepath.Base(rec.path))
		}
		if rec.client == "" {
			a.Kubeconfig = data
			continue
		}
		if a.Clients == nil {
			a.Clients = map[string][]byte{}
		}
		a.Clients[rec.client] = data
	}
	return a, nil
}

// RestoreAccess puts the admin kubeconfig the last apply published back
// where the state says eggo wrote it. A Job's directory starts empty, and
// eggo plans to write a missing kubeconfig again: without this, no plan
// of an applied cluster would ever be empty. Only the EggoCluster's own
// Secret is used, and only when its content is the sha256 the state
// records; otherwise nothing is written and eggo's plan says it will
// write the file (which the apply then publishes). It is best effort: a
// failure is a warning in the Job's log.
func RestoreAccess(o Options, stderr io.Writer, vars []string) {
	if err := restoreAccess(o, stderr, vars); err != nil {
		fmt.Fprintln(stderr, "warning: a kubeconfig was not restored from its Secret:", err)
	}
}

func restoreAccess(o Options, stderr io.Writer, vars []string) error {
	cs, err := clientset(o.Kubeconfig)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	// A client's kubeconfig is published with the admin's, never
	// without: no admin Secret, nothing to restore and no eggo show.
	_, err = cs.CoreV1().Secrets(o.stateNamespace()).Get(ctx, v1alpha1.KubeconfigSecretName(o.Cluster), metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	show, err := showState(o, stderr, vars)
	if err != nil {
		return err
	}
	recs, err := kubeconfigRecordsOf(o.WorkDir, show)
	if err != nil {
		return err
	}
	var errs []error
	for _, rec := range recs {
		errs = append(errs, restoreOne(ctx, cs, o, rec))
	}
	return errors.Join(errs...)
}

// restoreOne writes rec's kubeconfig from its Secret, when the Secret is
// the EggoCluster's and holds what the state records.
func restoreOne(ctx context.Context, cs kubernetes.Interface, o Options, rec kubeconfigRecord) error {
	s, err := cs.CoreV1().Secrets(o.stateNamespace()).Get(ctx, rec.secretName(o.Cluster), metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil // never published: nothing to restore
	}
	if err != nil {
		return err
	}
	if err := checkOwned(o, "Secret", s, "restored"); err != nil {
		return err
	}
	data := s.Data[v1alpha1.KubeconfigKey]
	if hashOf(data) != rec.sum {
		return fmt.Errorf("the Secret %s is not the kubeconfig the state records (sha256 differs): eggo writes it again", s.Name)
	}
	return writeRestored(o.WorkDir, &rec, data)
}

// writeRestored writes the kubeconfig where the state records it, only
// inside the run's directory: the path comes from the state, and a Job
// writes nothing of it elsewhere.
func writeRestored(workDir string, rec *kubeconfigRecord, data []byte) error {
	if rel, err := filepath.Rel(workDir, rec.path); err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return fmt.Errorf("the state's kubeconfig %s is outside the run's directory: not restored", rec.path)
	}
	if err := os.MkdirAll(filepath.Dir(rec.path), 0o700); err != nil {
		return err
	}
	return os.WriteFile(rec.path, data, 0o600)
}

// PublishAccess writes the Secrets <cluster>-kubeconfig (key value: the
// admin kubeconfig) and <cluster>-ca (key tls.crt: the CA certificate,
// no key) in the state namespace — whoever reads the state owns the
// cluster already, and nobody else should read its admin key — labelled
// with the Job and naming the EggoCluster. A Secret
// of either name that is not eggo's for the EggoCluster (a user's own
// <name>-kubeconfig) is refused (checkOwned), unchanged.
func PublishAccess(o Options, a Access) error {
	cs, err := clientset(o.Kubeconfig)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ns := o.stateNamespace()
	kc := &corev1.Secret{ObjectMeta: objectMeta(o, ns, v1alpha1.KubeconfigSecretName(o.Cluster), "kubeconfig"),
		Type: corev1.SecretTypeOpaque, Data: map[string][]byte{v1alpha1.KubeconfigKey: a.Kubeconfig}}
	api := secrets(cs, ns)
	if err := api.upsert(ctx, o, kc); err != nil {
		return fmt.Errorf("publishing the admin kubeconfig as Secret %s: %w", kc.Name, err)
	}
	ca := &corev1.Secret{ObjectMeta: objectMeta(o, ns, v1alpha1.CASecretName(o.Cluster), "ca"),
		Type: corev1.SecretTypeOpaque, Data: map[string][]byte{v1alpha1.CACertKey: a.CACert}}
	if err := api.upsert(ctx, o, ca); err != nil {
		return fmt.Errorf("publishing the CA certificate as Secret %s: %w", ca.Name, err)
	}
	for _, client := range slices.Sorted(maps.Keys(a.Clients)) {
		name := v1alpha1.ClientKubeconfigSecretName(o.Cluster, client)
		s := &corev1.Secret{ObjectMeta: objectMeta(o, ns, name, contentClientKubeconfig),
			Type: corev1.SecretTypeOpaque, Data: map[string][]byte{v1alpha1.KubeconfigKey: a.Clients[client]}}
		if err := api.upsert(ctx, o, s); err != nil {
			return fmt.Errorf("publishing client %s's kubeconfig as Secret %s: %w", client, name, err)
		}
	}
	// A client the configuration no longer declares is no longer published.
	return prune(ctx, api, o, clientKubeconfigSelector(o), func(name string) bool {
		for client := range a.Clients {
			if name == v1alpha1.ClientKubeconfigSecretName(o.Cluster, client) {
				return true
			}
		}
		return false
	}, "client kubeconfig", io.Discard)
}

// contentClientKubeconfig labels (eggo.io/content) a client's published
// kubeconfig: a destroy finds them by it.
const contentClientKubeconfig = "client-kubeconfig"
