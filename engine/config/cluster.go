package config

import (
	"net"
	"regexp"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/eggo-project/eggo/resources"
)

// clusterBlock is the cluster block and, once evaluated, its model.
type clusterBlock struct {
	block        *hcl.Block
	content      *hcl.BodyContent
	network      *hcl.Block // nil when absent
	certificates *hcl.Block
	runtime      *hcl.Block
	addons       *hcl.Block
	model        resources.Cluster
	unknown      map[hcl.Range]bool // validate mode: see partial.go
}

func (l *loader) declareCluster(b *hcl.Block) hcl.Diagnostics {
	if len(l.clusters) > 0 {
		first := l.clusters[0].block
		return hcl.Diagnostics{diagf(b.DefRange, "Duplicate cluster block",
			"A configuration describes one cluster, and cluster %s is already declared at %s. "+
				"Remove this block or put it in its own directory.", quoted(first.Labels[0]), source(first.DefRange))}
	}
	content, diags := b.Body.Content(clusterSchema)
	cb := &clusterBlock{block: b, content: content}
	l.clusters = append(l.clusters, cb)
	for _, nb := range content.Blocks {
		slot := &cb.network
		switch nb.Type {
		case "certificates":
			slot = &cb.certificates
		case "runtime":
			slot = &cb.runtime
		case "addons":
			slot = &cb.addons
		}
		if *slot != nil {
			diags = append(diags, diagf(nb.DefRange, "Duplicate "+nb.Type+" block",
				"The cluster already has a %s block at %s; merge the two.", nb.Type, source((*slot).DefRange)))
			continue
		}
		*slot = nb
	}
	l.addVertex(&vertex{
		kind:       "cluster",
		decl:       b.DefRange,
		traversals: bodyTraversals(b.Body),
		eval:       func(ctx *hcl.EvalContext) hcl.Diagnostics { return l.evalCluster(cb, ctx) },
	})
	return diags
}

var versionPattern = regexp.MustCompile(`^v?(\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?)$`)

func (l *loader) evalCluster(cb *clusterBlock, ctx *hcl.EvalContext) hcl.Diagnostics {
	dec := l.decoder(ctx)
	attrs := dec.require(clusterSchema, cb.content.Attributes)
	c := &cb.model
	c.Name = cb.block.Labels[0]
	c.Source = source(cb.block.DefRange)
	c.Ranges = clusterRanges(cb)

	if v := dec.strPtr(attrs, "kubernetes_version"); v != nil {
		m := versionPattern.FindStringSubmatch(*v)
		if m == nil {
			dec.errorf(attrs["kubernetes_version"].Expr.Range(), "Invalid kubernetes_version",
				"kubernetes_version must be a release version like \"1.31.4\"; got %s.", dec.show(attrs["kubernetes_version"], *v))
		} else if _, err := resources.MinorOf(m[1]); err != nil {
			dec.errorf(attrs["kubernetes_version"].Expr.Range(), "Unsupported Kubernetes version", "%s.", err)
		} else {
			c.KubernetesVersion = m[1]
		}
	}
	if p := dec.strPtr(attrs, "packages"); p != nil {
		abs, err := l.confinedPath(*p)
		if err != nil {
			dec.errorf(attrs["packages"].Expr.Range(), "Invalid packages path", "%s.", err)
		}
		c.Packages = abs
	}
	c.ConfigDir = dec.str(attrs, "config_dir", "/etc/kubernetes")
	if why := configDirProblem(c.ConfigDir); why != "" {
		dec.errorf(attrs["config_dir"].Expr.Range(), "Invalid config_dir",
			"config_dir is the directory eggo keeps the cluster's files in on the nodes, like \"/etc/kubernetes\" (the default); got %s: %s.",
			dec.show(attrs["config_dir"], c.ConfigDir), why)
	}
	c.APIEndpoint = dec.str(attrs, "api_endpoint", "")
	if c.APIEndpoint != "" && !validEndpoint(c.APIEndpoint) {
		dec.errorf(attrs["api_endpoint"].Expr.Range(), "Invalid api_endpoint",
			"api_endpoint must be HOST or HOST:PORT (an IP address or DNS name, and a port from 1 to 65535); got %s.",
			dec.show(attrs["api_endpoint"], c.APIEndpoint))
	}
	// Cluster labels are not Kubernetes labels: they go to cluster-scope
	// hooks as KEY=VALUE words (hook.ClusterArgs), where a value like
	// "platform ops" is in use, so checkLabels is for node labels only.
	c.Labels = dec.stringMap(attrs, "labels")
	c.Annotations = dec.stringMap(attrs, "annotations")
	c.Network = l.decodeNetwork(dec, cb)
	c.Certificates = decodeCertificates(dec, cb.certificates)
	c.MaxUnavailable = decodeMaxUnavailable(dec, attrs)
	if p := dec.boolPtr(attrs, "schedule_on_masters"); p != nil {
		c.ScheduleOnMasters = *p
	}
	c.Implementation = dec.str(attrs, "implementation", resources.ImplementationBinary)
	if c.Implementation != resources.ImplementationBinary && c.Implementation != resources.ImplementationPod {
		dec.errorf(attrs["implementation"].Expr.Range(), "Invalid implementation",
			"implementation is how the control plane runs: \"binary\" (systemd services) or \"pod\" (static pods run by the masters' kubelets); got %s.",
			dec.show(attrs["implementation"], c.Implementation))
	}
	c.EtcdImplementation = dec.str(attrs, "etcd_implementation", resources.ImplementationBinary)
	switch {
	case c.EtcdImplementation != resources.ImplementationBinary && c.EtcdImplementation != resources.ImplementationPod:
		dec.errorf(attrs["etcd_implementation"].Expr.Range(), "Invalid etcd_implementation",
			"etcd_implementation is how etcd runs: \"binary\" (a systemd service, the default) or \"pod\" (a static pod the member's kubelet runs); got %s.",
			dec.show(attrs["etcd_implementation"], c.EtcdImplementation))
	case c.EtcdImplementation == resources.ImplementationPod && !c.StaticPods():
		dec.errorf(attrs["etcd_implementation"].Expr.Range(), "Static-pod etcd without static pods",
			"etcd_implementation = \"pod\" runs etcd as a static pod beside the control plane's: it needs implementation = \"pod\" too.")
	}
	c.ExtraArgs = decodeExtraArgs(dec, attrs)
	c.Runtime = decodeRuntime(dec, cb.runtime)
	c.Addons = l.decodeAddons(dec, cb.addons)

	cb.unknown = dec.unknown
	if !dec.diags.HasErrors() {
		l.values["cluster"] = cb.value()
	}
	return dec.diags
}

func validEndpoint(s string) bool {
	if isHost(s) {
		return true
	}
	host, port, err := net.SplitHostPort(s)
	if err != nil {
		return false
	}
	n, err := strconv.Atoi(port)
	return err == nil && n > 0 && n < 65536 && isHost(strings.Trim(host, "[]"))
}

// clusterValue is what cluster.* evaluates to.
func clusterValue(c *resources.Cluster) cty.Value {
	return cty.ObjectVal(map[string]cty.Value{
		"name":               cty.StringVal(c.Name),
		"kubernetes_version": cty.StringVal(c.KubernetesVersion),
		"packages":           cty.StringVal(c.Packages),
		"config_dir":         cty.StringVal(c.ConfigDir),
		"api_endpoint":       cty.StringVal(c.APIEndpoint),
		"labels":             stringMapValue(c.Labels),
		"annotations":        stringMapValue(c.Annotations),
		"network": cty.ObjectVal(map[string]cty.Value{
			"service_cidr": cty.StringVal(c.Network.ServiceCIDR),
			"pod_cidr":     cty.StringVal(c.Network.PodCIDR),
			"dns_domain":   cty.StringVal(c.Network.DNSDomain),
		}),
		"max_unavailable":     cty.NumberIntVal(int64(c.MaxUnavailable)),
		"schedule_on_masters": cty.BoolVal(c.ScheduleOnMasters),
		"implementation":      cty.StringVal(c.Implementation),
		"etcd_implementation": cty.StringVal(c.EtcdImplementation),
		"extra_args":          extraArgsValue(c.ExtraArgs),
		"runtime": cty.ObjectVal(map[string]cty.Value{
			"restrict_oom_score_adj": cty.BoolVal(c.Runtime.RestrictOOMScoreAdj),
			"cgroup_root_per_node":   cty.BoolVal(c.Runtime.CgroupRootPerNode),
			"eviction_hard":          stringMapValue(c.Runtime.EvictionHard),
			"image_gc_high_percent":  cty.NumberIntVal(int64(c.Runtime.ImageGCHighPercent)),
			"image_gc_low_percent":   cty.NumberIntVal(int64(c.Runtime.ImageGCLowPercent)),
			"registry_mirrors":       registryMirrorsValue(c.Runtime.RegistryMirrors),
		}),
	})
}

// extraArgsValue is cluster.extra_args: a map of every component named in
// the configuration to its flags.
func extraArgsValue(m map[string]map[string]string) cty.Value {
	if len(m) == 0 {
		return cty.MapValEmpty(cty.Map(cty.String))
	}
	vals := make(map[string]cty.Value, len(m))
	for k, flags := range m {
		vals[k] = stringMapValue(flags)
	}
	return cty.MapVal(vals)
}

func stringMapValue(m map[string]string) cty.Value {
	if len(m) == 0 {
		return cty.MapValEmpty(cty.String)
	}
	vals := make(map[string]cty.Value, len(m))
	for k, v := range m {
		vals[k] = cty.StringVal(v)
	}
	return cty.MapVal(vals)
}

func stringListValue(s []string) cty.Value {
	if len(s) == 0 {
		return cty.ListValEmpty(cty.String)
	}
	vals := make([]cty.Value, len(s))
	for i, v := range s {
		vals[i] = cty.StringVal(v)
	}
	return cty.ListVal(vals)
}
