// Package controlplane is the EggoControlPlane's controller: it owns the
// cluster's eggo configuration, rendered from Cluster API's objects into
// the EggoCluster the GitOps controller plans and applies through its
// Jobs (capi/DESIGN.md §5).
package controlplane

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"
)

// Cluster is what the rendered configuration says: the cluster as the
// EggoControlPlane, the Cluster, the SSHCluster and the claimed hosts of
// its machines describe it. Every field comes from objects a user wrote,
// so every one reaches the configuration as a literal (Render).
type Cluster struct {
	Name        string // the Cluster's name: the eggo cluster's
	Version     string // the control plane's version, "v1.36.5" or "1.36.5"
	APIEndpoint string // HOST or HOST:PORT, "" for the first master's
	ServiceCIDR string // "" for eggo's default
	PodCIDR     string // "" for eggo's default
	// Recipients seal the state's secrets (the secrets block), as the
	// GitOps mode seals them; none: no secrets block.
	Recipients []string
	// Client is the certificates block's client the control plane
	// publishes to Cluster API as <cluster>-kubeconfig (never the admin's
	// kubeconfig); nil: none.
	Client *Client
	// Addons and Runtime are the cluster block's addons and runtime
	// blocks: each attribute written only when set.
	Addons  Addons
	Runtime Runtime
	Nodes   []Node
}

// Addons is the addons block; nil is not written (eggo's default).
type Addons struct {
	// CoreDNS true is written only when a node is a worker: eggo refuses
	// CoreDNS with nowhere to run (the masters are tainted).
	CoreDNS         *bool
	CoreDNSReplicas *int32
	// CoreDNSUpstream nil is eggo's default; an empty list is written as
	// one: CoreDNS answers the cluster's names only.
	CoreDNSUpstream *[]string
	KubeProxy       *bool
}

// Runtime is the runtime block; nil and empty are not written.
type Runtime struct {
	RestrictOOMScoreAdj *bool
	CgroupRootPerNode   *bool
	EvictionHard        map[string]string
	ImageGCHighPercent  *int32
	ImageGCLowPercent   *int32
	RegistryMirrors     map[string][]string
}

// Client is a client certificate of the cluster CA with a short life,
// renewed renew_before its end by an apply.
type Client struct {
	Name        string   // the client block's label: "capi"
	Groups      []string // its organizations: the Kubernetes groups it is in
	Validity    time.Duration
	RenewBefore time.Duration
}

// Node is one machine on its claimed host.
type Node struct {
	Name       string   // the Machine's name: the node's
	Address    string   // the host's
	Port       int32    // SSH port, 0 for 22
	User       string   // SSH user, "" for root
	Sudo       bool     // the user runs eggo's commands through sudo
	HostKey    string   // the host's public key, pinned from the first contact
	KeyFile    string   // the SSH private key's path in the Job
	Roles      []string // ["master", "etcd"] or ["worker"]
	ProviderID string   // eggo://NS/HOST/UID, the Node's spec.providerID
	Labels     map[string]string
	Taints     []string // "key=value:Effect"
}

// nodeName is what a Machine's name must be to name an eggo node: a DNS
// label, as a Node's name in eggo is.
var nodeName = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$`)

// Render writes the cluster's configuration. Values are literals written
// by hclwrite, which escapes "${" and "%{", so no field can become an
// expression or a template; names that would have to be something else
// (a Machine name that is no DNS label) are refused, named.
func Render(c Cluster) ([]byte, error) {
	if !nodeName.MatchString(c.Name) {
		return nil, fmt.Errorf("cluster name %q is not a DNS label: eggo names its objects after it", c.Name)
	}
	f := hclwrite.NewEmptyFile()
	root := f.Body()
	// The state in the management cluster, in the Job's state namespace.
	root.AppendNewBlock("backend", []string{"kubernetes"})
	root.AppendNewline()

	cl := root.AppendNewBlock("cluster", []string{c.Name}).Body()
	cl.SetAttributeValue("kubernetes_version", cty.StringVal(strings.TrimPrefix(c.Version, "v")))
	cl.SetAttributeValue("packages", cty.StringVal("./packages")) // the Job links the bundle there
	if c.APIEndpoint != "" {
		cl.SetAttributeValue("api_endpoint", cty.StringVal(c.APIEndpoint))
	}
	if c.ServiceCIDR != "" || c.PodCIDR != "" {
		nw := cl.AppendNewBlock("network", nil).Body()
		if c.ServiceCIDR != "" {
			nw.SetAttributeValue("service_cidr", cty.StringVal(c.ServiceCIDR))
		}
		if c.PodCIDR != "" {
			nw.SetAttributeValue("pod_cidr", cty.StringVal(c.PodCIDR))
		}
	}
	if c.Client != nil {
		cb := cl.AppendNewBlock("certificates", nil).Body().AppendNewBlock("client", []string{c.Client.Name}).Body()
		cb.SetAttributeValue("groups", stringList(c.Client.Groups))
		cb.SetAttributeValue("validity", cty.StringVal(c.Client.Validity.String()))
		cb.SetAttributeValue("renew_before", cty.StringVal(c.Client.RenewBefore.String()))
	}
	renderAddons(cl, c.Addons, hasWorker(c.Nodes))
	renderRuntime(cl, c.Runtime)
	if len(c.Recipients) > 0 {
		root.AppendNewline()
		root.AppendNewBlock("secrets", nil).Body().SetAttributeValue("recipients", stringList(c.Recipients))
	}

	nodes := append([]Node(nil), c.Nodes...)
	sort.Slice(nodes, func(i, j int) bool { return nodes[i].Name < nodes[j].Name })
	for _, n := range nodes {
		if err := renderNode(root, n); err != nil {
			return nil, err
		}
	}
	return f.Bytes(), nil
}

func renderNode(root *hclwrite.Body, n Node) error {
	if !nodeName.MatchString(n.Name) {
		return fmt.Errorf("machine %q: its name is not a DNS label (lowercase letters, digits and '-', at most 63), which an eggo node's name must be", n.Name)
	}
	if !hclsyntax.ValidIdentifier(n.Name) {
		return fmt.Errorf("machine %q: its name must start with a letter to label an eggo node block", n.Name)
	}
	root.AppendNewline()
	b := root.AppendNewBlock("node", []string{n.Name}).Body()
	b.SetAttributeValue("address", cty.StringVal(n.Address))
	b.SetAttributeValue("roles", stringList(n.Roles))
	if n.ProviderID != "" {
		b.SetAttributeValue("provider_id", cty.StringVal(n.ProviderID))
	}
	if len(n.Labels) > 0 {
		m := make(map[string]cty.Value, len(n.Labels))
		for k, v := range n.Labels {
			m[k] = cty.StringVal(v)
		}
		b.SetAttributeValue("labels", cty.MapVal(m))
	}
	if len(n.Taints) > 0 {
		b.SetAttributeValue("taints", stringList(n.Taints))
	}
	conn := b.AppendNewBlock("connection", nil).Body()
	conn.SetAttributeValue("user", cty.StringVal(orDefault(n.User, "root")))
	if n.Port != 0 && n.Port != 22 {
		conn.SetAttributeValue("port", cty.NumberIntVal(int64(n.Port)))
	}
	conn.SetAttributeValue("private_key_file", cty.StringVal(n.KeyFile))
	conn.SetAttributeValue("host_key", cty.StringVal(n.HostKey))
	if n.Sudo {
		conn.SetAttributeValue("sudo", cty.True)
	}
	return nil
}

// renderAddons writes the addons block when anything in it is set.
// CoreDNS on without a worker is left out: eggo would refuse the whole
// configuration (CoreDNS without workers), and the first worker's plan
// adds it.
func renderAddons(cl *hclwrite.Body, a Addons, worker bool) {
	if a.CoreDNS != nil && *a.CoreDNS && !worker {
		a.CoreDNS = nil
	}
	if a == (Addons{}) {
		return
	}
	b := cl.AppendNewBlock("addons", nil).Body()
	setBool(b, "coredns", a.CoreDNS)
	setInt(b, "coredns_replicas", a.CoreDNSReplicas)
	if a.CoreDNSUpstream != nil {
		b.SetAttributeValue("coredns_upstream", stringList(*a.CoreDNSUpstream))
	}
	setBool(b, "kube_proxy", a.KubeProxy)
}

// renderRuntime writes the runtime block when anything in it is set.
func renderRuntime(cl *hclwrite.Body, r Runtime) {
	if r.RestrictOOMScoreAdj == nil && r.CgroupRootPerNode == nil && len(r.EvictionHard) == 0 &&
		r.ImageGCHighPercent == nil && r.ImageGCLowPercent == nil && len(r.RegistryMirrors) == 0 {
		return
	}
	b := cl.AppendNewBlock("runtime", nil).Body()
	setBool(b, "restrict_oom_score_adj", r.RestrictOOMScoreAdj)
	setBool(b, "cgroup_root_per_node", r.CgroupRootPerNode)
	if len(r.EvictionHard) > 0 {
		m := make(map[string]cty.Value, len(r.EvictionHard))
		for k, v := range r.EvictionHard {
			m[k] = cty.StringVal(v)
		}
		b.SetAttributeValue("eviction_hard", cty.MapVal(m))
	}
	setInt(b, "image_gc_high_percent", r.ImageGCHighPercent)
	setInt(b, "image_gc_low_percent", r.ImageGCLowPercent)
	if len(r.RegistryMirrors) > 0 {
		m := make(map[string]cty.Value, len(r.RegistryMirrors))
		for k, v := range r.RegistryMirrors {
			m[k] = stringList(v)
		}
		b.SetAttributeValue("registry_mirrors", cty.MapVal(m))
	}
}

func setBool(b *hclwrite.Body, name string, v *bool) {
	if v != nil {
		b.SetAttributeValue(name, cty.BoolVal(*v))
	}
}

func setInt(b *hclwrite.Body, name string, v *int32) {
	if v != nil {
		b.SetAttributeValue(name, cty.NumberIntVal(int64(*v)))
	}
}

// hasWorker says whether a node has the worker role, where CoreDNS's
// pods run.
func hasWorker(nodes []Node) bool {
	for _, n := range nodes {
		if slices.Contains(n.Roles, "worker") {
			return true
		}
	}
	return false
}

func stringList(items []string) cty.Value {
	if len(items) == 0 {
		return cty.ListValEmpty(cty.String)
	}
	vals := make([]cty.Value, len(items))
	for i, s := range items {
		vals[i] = cty.StringVal(s)
	}
	return cty.ListVal(vals)
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
