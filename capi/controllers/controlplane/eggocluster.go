package controlplane

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	cpv1 "github.com/eggo-project/eggo/capi/api/controlplane/v1alpha1"
	infrav1 "github.com/eggo-project/eggo/capi/api/infrastructure/v1alpha1"
	"github.com/eggo-project/eggo/capi/controllers/bootstrap"
	eggov1 "github.com/eggo-project/eggo/controller/api/v1alpha1"
)

// BootstrapData is a machine's eggo description, the key "value" of its
// EggoConfig's data Secret, as the bootstrap provider writes it.
type BootstrapData = bootstrap.NodeData

// ParseBootstrapData reads a data Secret's value, refusing one that is
// not an EggoNode.
func ParseBootstrapData(value []byte) (BootstrapData, error) {
	var d BootstrapData
	if err := json.Unmarshal(value, &d); err != nil {
		return d, fmt.Errorf("bootstrap data: %v", err)
	}
	if d.Kind != bootstrap.NodeDataKind || d.APIVersion != bootstrap.NodeDataAPIVersion {
		return d, fmt.Errorf("bootstrap data of kind %q, %q: want %s, %s", d.Kind, d.APIVersion, bootstrap.NodeDataKind, bootstrap.NodeDataAPIVersion)
	}
	return d, nil
}

// keptTaints are the taints eggo keeps on a machine's Node: all its data
// names but Cluster API's uninitialized taint, which core removes once it
// has synced the Node's labels and which eggo would otherwise put back at
// every apply.
func keptTaints(taints []string) []string {
	var out []string
	for _, t := range taints {
		if t != bootstrap.UninitializedTaint {
			out = append(out, t)
		}
	}
	return out
}

// Machine is one machine of the cluster as the control plane renders it:
// its name, the host it claimed, the providerID its SSHMachine gives the
// Node, and its bootstrap data.
type Machine struct {
	Name       string
	Host       *infrav1.SSHHost
	ProviderID string
	Data       BootstrapData
}

// Inputs are the objects an EggoControlPlane's EggoCluster is made from.
type Inputs struct {
	ControlPlane *cpv1.EggoControlPlane
	Cluster      *clusterv1.Cluster
	APIEndpoint  string // HOST:PORT: the SSHCluster's, "" for the first master's
	Machines     []Machine
	// HeldKeys are the SSH key Secrets of every host the cluster still
	// claims, those of Machines being deleted too: eggo reaches a node it
	// removes with the key its state recorded, so a key stays mounted
	// until every host that names it is given back.
	HeldKeys []string
}

// DesiredEggoCluster is the EggoCluster the control plane keeps: named
// after the Cluster, in its namespace, its configuration rendered from
// the machines, approval Manual (the control plane approves only the plans
// its machines ask for) and deletion by destroy. The caller sets the
// controller reference.
//
// The hosts may name different SSH key Secrets: the EggoCluster mounts
// them all (sshKeys) and each node's private_key_file is its host's.
func DesiredEggoCluster(in Inputs) (*eggov1.EggoCluster, error) {
	cp, cluster := in.ControlPlane, in.Cluster
	key, moreKeys, keyFiles, err := sshKeys(in.Machines, in.HeldKeys)
	if err != nil {
		return nil, err
	}
	c := Cluster{
		Name:        cluster.Name,
		Version:     cp.Spec.Version,
		APIEndpoint: in.APIEndpoint,
		ServiceCIDR: cmp.Or(cp.Spec.Eggo.Network.ServiceCIDR, first(cluster.Spec.ClusterNetwork.Services.CIDRBlocks)),
		PodCIDR:     cmp.Or(cp.Spec.Eggo.Network.PodCIDR, first(cluster.Spec.ClusterNetwork.Pods.CIDRBlocks)),
		Recipients:  cp.Spec.Eggo.Recipients,
		Client:      capiClient(cp.Spec.Kubeconfig),
		Addons:      addonsBlock(cp.Spec.Eggo.Addons),
		Runtime:     runtimeBlock(cp.Spec.Eggo.Runtime),
	}
	for _, m := range in.Machines {
		h := m.Host.Spec
		labels := map[string]string{}
		for k, v := range h.NodeLabels {
			labels[k] = v
		}
		for k, v := range m.Data.Labels { // the machine's own win
			labels[k] = v
		}
		c.Nodes = append(c.Nodes, Node{
			Name: m.Name, Address: h.Address, Port: h.Port, User: h.User, Sudo: h.Sudo, HostKey: h.HostKey,
			KeyFile: keyFiles[h.SSHKeySecretRef.Name], Roles: m.Data.Roles, ProviderID: m.ProviderID,
			Labels: labels, Taints: keptTaints(m.Data.Taints),
		})
	}
	hcl, err := Render(c)
	if err != nil {
		return nil, err
	}
	inline := string(hcl)
	e := cp.Spec.Eggo
	return &eggov1.EggoCluster{
		ObjectMeta: metav1.ObjectMeta{Name: cluster.Name, Namespace: cluster.Namespace,
			Labels: map[string]string{clusterv1.ClusterNameLabel: cluster.Name}},
		Spec: eggov1.EggoClusterSpec{
			Config:                     eggov1.ConfigSource{Inline: &inline},
			Bundle:                     e.Bundle,
			SSHKeySecretRef:            key,
			AdditionalSSHKeySecretRefs: moreKeys,
			IdentitySecretRef:          e.IdentitySecretRef,
			Image:                      e.Image,
			ServiceAccountName:         e.ServiceAccountName,
			Approval:                   eggov1.ApprovalManual,
			DeletionPolicy:             eggov1.DeletionDestroy,
		},
	}, nil
}

// sshKeys are the SSH key Secrets the rendered hosts and held name, each
// once: the first by name is the EggoCluster's sshKeySecretRef, the
// others, sorted, its additionalSSHKeySecretRefs (so the spec is the same
// whatever order the Machines come in). files gives each Secret's path in
// eggo's Jobs, by its name (eggov1.SSHKeyPath): the path eggo's state
// records for a node stays right when another Secret becomes the first.
// More than an EggoCluster mounts are refused, naming how many.
func sshKeys(machines []Machine, held []string) (primary corev1.LocalObjectReference, more []corev1.LocalObjectReference, files map[string]string, err error) {
	names := slices.Clone(held)
	for _, m := range machines {
		names = append(names, m.Host.Spec.SSHKeySecretRef.Name)
	}
	sort.Strings(names)
	names = slices.Compact(names)
	if len(names) == 0 {
		return primary, nil, nil, nil
	}
	if len(names) > 1+maxAdditionalSSHKeys {
		return primary, nil, nil, fmt.Errorf("the cluster's hosts name %d SSH key Secrets: its EggoCluster mounts %d at most", len(names), 1+maxAdditionalSSHKeys)
	}
	primary.Name = names[0]
	files = map[string]string{}
	for i, n := range names {
		if i > 0 {
			more = append(more, corev1.LocalObjectReference{Name: n})
		}
		files[n] = eggov1.SSHKeyPath(n)
	}
	return primary, more, files, nil
}

// maxAdditionalSSHKeys is the EggoCluster's bound on
// additionalSSHKeySecretRefs (its CRD's maxItems).
const maxAdditionalSSHKeys = 16

// CAPIClient is the client certificate whose kubeconfig the control plane
// publishes as the Cluster's <cluster>-kubeconfig.
const CAPIClient = "capi"

// The published kubeconfig's defaults, as the CRD defaults them (a
// client that sends none still gets a short-lived certificate).
const (
	defaultKubeconfigValidity    = 720 * time.Hour
	defaultKubeconfigRenewBefore = 240 * time.Hour
)

// capiClient is the configuration's client "capi": in system:masters, as
// Cluster API's own control planes make the kubeconfig they publish, with
// the life spec.kubeconfig gives it.
func capiClient(k cpv1.KubeconfigSpec) *Client {
	c := &Client{Name: CAPIClient, Groups: []string{"system:masters"}, Validity: defaultKubeconfigValidity, RenewBefore: defaultKubeconfigRenewBefore}
	if k.Validity != nil {
		c.Validity = k.Validity.Duration
	}
	if k.RenewBefore != nil {
		c.RenewBefore = k.RenewBefore.Duration
	}
	return c
}

func first(items []string) string {
	if len(items) == 0 {
		return ""
	}
	return strings.TrimSpace(items[0])
}

// addonsBlock is the configuration's addons block from spec.eggo.addons:
// CoreDNS on unless coreDNS is false (a Cluster API cluster has cluster
// DNS, as kubeadm's has); the rest only when set. An empty upstream list
// stays one (cluster names only), apart from an unset one.
func addonsBlock(a cpv1.AddonsSpec) Addons {
	out := Addons{CoreDNS: ptr.To(ptr.Deref(a.CoreDNS, true)), CoreDNSReplicas: a.CoreDNSReplicas, KubeProxy: a.KubeProxy}
	if a.CoreDNSUpstream != nil {
		up := make([]string, 0, len(*a.CoreDNSUpstream))
		for _, u := range *a.CoreDNSUpstream {
			up = append(up, string(u))
		}
		out.CoreDNSUpstream = &up
	}
	return out
}

// runtimeBlock is the configuration's runtime block from spec.eggo.runtime.
func runtimeBlock(r cpv1.RuntimeSpec) Runtime {
	out := Runtime{RestrictOOMScoreAdj: r.RestrictOOMScoreAdj, CgroupRootPerNode: r.CgroupRootPerNode,
		ImageGCHighPercent: r.ImageGCHighPercent, ImageGCLowPercent: r.ImageGCLowPercent}
	if len(r.EvictionHard) > 0 {
		out.EvictionHard = make(map[string]string, len(r.EvictionHard))
		for k, v := range r.EvictionHard {
			out.EvictionHard[k] = string(v)
		}
	}
	if len(r.RegistryMirrors) > 0 {
		out.RegistryMirrors = make(map[string][]string, len(r.RegistryMirrors))
		for host, mirrors := range r.RegistryMirrors {
			for _, m := range mirrors {
				out.RegistryMirrors[host] = append(out.RegistryMirrors[host], string(m))
			}
		}
	}
	return out
}
