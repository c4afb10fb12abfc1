package jobrun

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/eggo-project/eggo/command/jsonmsg"
	"github.com/eggo-project/eggo/controller/api/v1alpha1"
)

// nodeStates reads eggo's state (`eggo show -json`'s output) and says, per node,
// how many of its resources are recorded and how many an interrupted run
// left pending.
func nodeStates(show []byte) ([]v1alpha1.NodeStatus, error) {
	var doc jsonmsg.State
	if !bytes.HasPrefix(bytes.TrimSpace(show), []byte("{")) {
		return []v1alpha1.NodeStatus{}, nil // no state yet: eggo says so in words
	}
	if err := json.Unmarshal(show, &doc); err != nil {
		return nil, fmt.Errorf("eggo show -json: %v", err)
	}
	type count struct{ all, pending int }
	per := map[string]*count{}
	for _, r := range doc.Resources {
		if r.Node == "" {
			continue
		}
		if per[r.Node] == nil {
			per[r.Node] = &count{}
		}
		per[r.Node].all++
		if r.Status != "" {
			per[r.Node].pending++
		}
	}
	nodes := make([]v1alpha1.NodeStatus, 0, len(per))
	for name, c := range per {
		s := fmt.Sprintf("Applied (%d resources)", c.all)
		if c.pending > 0 {
			s = fmt.Sprintf("Pending (%d of %d resources pending)", c.pending, c.all)
		}
		nodes = append(nodes, v1alpha1.NodeStatus{Name: name, State: s})
	}
	sort.Slice(nodes, func(a, b int) bool { return nodes[a].Name < nodes[b].Name })
	return nodes, nil
}

// publishNodes writes the nodes' state into <cluster>-nodes, labelled with
// the Job. It is best effort: a failure is logged, not the Job's outcome.
func publishNodes(o Options, stderr io.Writer, vars []string) {
	show, err := showState(o, stderr, vars)
	publishNodesOf(o, stderr, show, err)
}

// showState is `eggo show -json`: the state as JSON (or eggo's words when
// there is none yet).
func showState(o Options, stderr io.Writer, vars []string) ([]byte, error) {
	var out bytes.Buffer
	args := append(append([]string{"show", "-json"}, o.identityArgs()...), varFlags(vars)...)
	err := eggo(o, &out, stderr, args...)
	return out.Bytes(), err
}

// publishNodesOf publishes the nodes of a state eggo showed (show, or the
// error showing it gave).
func publishNodesOf(o Options, stderr io.Writer, show []byte, err error) {
	var nodes []v1alpha1.NodeStatus
	if err == nil {
		nodes, err = nodeStates(show)
	}
	if err == nil {
		err = WriteNodes(o, nodes)
	}
	if err != nil {
		fmt.Fprintln(stderr, "warning: the nodes' state was not published:", err)
	}
}

// WriteNodes publishes the nodes' state as the ConfigMap <cluster>-nodes;
// one of that name that is not eggo's for the EggoCluster is refused
// (checkOwned), unchanged.
func WriteNodes(o Options, nodes []v1alpha1.NodeStatus) error {
	cs, err := clientset(o.Kubeconfig)
	if err != nil {
		return err
	}
	data, err := json.Marshal(nodes)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	meta := objectMeta(o, o.Namespace, v1alpha1.NodesConfigMapName(o.Cluster), "nodes")
	return configMaps(cs, o.Namespace).upsert(ctx, o, &corev1.ConfigMap{ObjectMeta: meta, Data: map[string]string{v1alpha1.NodesKey: string(data)}})
}

// objectMeta names an object the Job publishes in namespace ns: labelled
// with the cluster and the Job, and tied to the EggoCluster — by an
// ownerReference in the EggoCluster's namespace (the object goes with
// it), by its namespace and UID in the state namespace, where no
// ownerReference can reach it (missing checks either).
func objectMeta(o Options, ns, name, content string) metav1.ObjectMeta {
	meta := metav1.ObjectMeta{
		Name: name, Namespace: ns,
		Labels: map[string]string{v1alpha1.LabelCluster: o.Cluster, v1alpha1.LabelJob: o.Job, v1alpha1.LabelContent: content},
	}
	switch {
	case o.ClusterUID == "":
	case ns == o.Namespace:
		meta.OwnerReferences = []metav1.OwnerReference{{
			APIVersion: v1alpha1.GroupVersion.String(), Kind: "EggoCluster", Name: o.Cluster, UID: typesUID(o.ClusterUID),
		}}
	default:
		meta.Labels[v1alpha1.LabelClusterNamespace] = o.Namespace
		meta.Annotations = map[string]string{v1alpha1.AnnotationClusterUID: o.ClusterUID}
	}
	return meta
}
