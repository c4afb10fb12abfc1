package addon

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/eggo-project/eggo/resources"
	"github.com/eggo-project/eggo/resources/kube"
)

// Addon is the addon kind: a set of Kubernetes objects applied from one
// manifest with `kubectl apply` on a master, through that master's admin
// kubeconfig over its SSH connection (kubectlVia), like k8s_node. The
// built-in addon.coredns renders its manifest from the cluster model; a
// user's manifest file is addon.<base name>.
//
// State keeps the manifest's sha256 (never its content: a user manifest may
// hold Secrets) and the objects it applied, so a refresh finds objects
// deleted outside eggo, an update prunes objects that left the manifest, and
// a delete removes exactly what was applied.
type Addon struct{}

// AddonLabel is set on every object of an add-on (value: the add-on's
// name), so `kubectl get all -A -l eggo.io/addon=coredns` finds them.
const AddonLabel = "eggo.io/addon"

const (
	addonSHA256  = "manifest_sha256"
	addonFile    = "file"    // a user add-on's manifest file
	addonCoreDNS = "coredns" // the built-in CoreDNS add-on's settings
	// addonFlannel (flannel.go): the built-in flannel RBAC's settings
	addonVia     = "via"     // {node, address, connection, kubeconfig}: the master eggo talks to the API through
	addonObjects = "objects" // [{api_version, kind, namespace, name}] applied
	addonMissing = "missing" // objects a refresh did not find ("Deployment kube-system/coredns")
)

// Name is "addon".
func (Addon) Name() string { return "addon" }

// Schema describes an add-on.
func (Addon) Schema() resources.Schema {
	return resources.Schema{Attributes: map[string]resources.AttrSchema{
		addonSHA256:  {Description: "sha256 of the manifest as applied (the content is not kept: it may hold Secrets)"},
		addonFile:    {Description: "the manifest file of a user add-on"},
		addonCoreDNS: {Description: "the built-in CoreDNS add-on's settings: image, replicas, DNS address and domain, upstream"},
		addonFlannel: {Description: "the built-in flannel add-on's settings: the user its RBAC binds"},
		addonVia:     {Description: "the master whose admin kubeconfig eggo uses"},
		addonObjects: {Description: "the objects the manifest applied", Computed: true},
		addonMissing: {Description: "objects the last refresh did not find in the cluster", Computed: true},
	}}
}

// Expand returns the built-in flannel add-on (its RBAC) when the cluster
// has Nodes, the built-in CoreDNS add-on when enabled and one add-on per
// user manifest. flannel's waits for the apiservers only; the others for
// every apiserver and for the kubelet, flanneld and kube-proxy of one
// Node their pods can run on (a worker, or a master when they may be
// scheduled there): waiting for every Node would let one broken Node hold
// back the cluster's DNS.
func (Addon) Expand(c *resources.Cluster) ([]resources.Desired, error) {
	masters := c.NodesWithRole("master")
	if len(masters) == 0 {
		return nil, nil
	}
	schedulable := c.SchedulableNodes()
	// The Node add-ons wait for: the first a pod without tolerations can
	// use, else the first master (a manifest's pods may tolerate it).
	var first []resources.Node
	if len(schedulable) > 0 {
		first = schedulable[:1]
	} else if nodes := c.KubeNodes(); len(nodes) > 0 {
		first = nodes[:1]
	}
	via := map[string]any{
		"node":       masters[0].Name,
		"address":    masters[0].Address,
		"connection": resources.ConnectionAttrsIn(c, masters[0]),
		"kubeconfig": kube.AdminKubeconfigPath(c),
	}
	var deps []string
	for _, m := range masters {
		deps = append(deps, resources.ServiceAddr(resources.CompAPIServer, m.Name))
	}
	var out []resources.Desired
	apiservers := slices.Clone(deps)
	for _, n := range first {
		deps = append(deps, resources.ServiceAddr(resources.CompKubelet, n.Name),
			resources.ServiceAddr(resources.CompFlannel, n.Name)) // its pods need the pod network
		if !c.Addons.SkipKubeProxy {
			deps = append(deps, resources.ServiceAddr(resources.CompKubeProxy, n.Name))
		}
	}
	if c.Addons.CoreDNS {
		d, err := coreDNSDesired(c, schedulable)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	seen := map[string]string{}
	if len(first) > 0 {
		seen[kube.FlannelAddon] = c.Ranges.Block.String() + " (the pod network's RBAC)"
	}
	if c.Addons.CoreDNS {
		seen[coreDNSAddon] = c.At("addons.coredns").String()
	}
	for _, m := range c.Addons.Manifests {
		if first, dup := seen[m.Name]; dup {
			return nil, resources.Blame(m.Where(), "Duplicate add-on",
				"manifest %s would be %s, which %s already declares", m.Path, resources.AddonAddr(m.Name), first)
		}
		seen[m.Name] = m.Where().String()
		content, err := os.ReadFile(m.Path)
		if err != nil {
			return nil, resources.Blame(m.Where(), "Unreadable add-on manifest", "%s: %v", resources.AddonAddr(m.Name), err)
		}
		out = append(out, resources.Desired{
			Addr:   resources.AddonAddr(m.Name),
			Kind:   "addon",
			Source: m.Source,
			Range:  m.Range,
			Attrs:  resources.Attrs{addonSHA256: resources.SHA256Hex(string(content)), addonFile: m.Path},
		})
	}
	if len(first) > 0 {
		out = append(out, flannelDesired(c, apiservers))
	}
	for i := range out {
		out[i].Attrs[addonVia] = via
		out[i].Attrs = resources.Attrs(resources.Normalize(map[string]any(out[i].Attrs)).(map[string]any))
		if out[i].DependsOn == nil {
			out[i].DependsOn = slices.Clone(deps)
		}
	}
	return out, nil
}

// manifestOf is the manifest an add-on's attributes describe: rendered for
// CoreDNS, read from its file otherwise. It must still be what the plan
// hashed: a file edited between plan and apply is refused, not applied
// unseen.
func manifestOf(addr string, attrs resources.Attrs) (string, error) {
	var content string
	if s, ok := attrs[addonFlannel].(map[string]any); ok {
		content = flannelRBAC(resources.AttrString(s["user"]))
	} else if s, ok := attrs[addonCoreDNS].(map[string]any); ok {
		var err error
		if content, err = renderCoreDNS(coreDNSSettingsFromAttrs(s)); err != nil {
			return "", fmt.Errorf("%s: rendering its manifest: %w", addr, err)
		}
	} else {
		file := resources.AttrString(attrs[addonFile])
		b, err := os.ReadFile(file)
		if err != nil {
			return "", fmt.Errorf("%s: reading its manifest: %w", addr, err)
		}
		content = string(b)
	}
	if got, want := resources.SHA256Hex(content), resources.AttrString(attrs[addonSHA256]); got != want {
		return "", fmt.Errorf("%s: the manifest %s changed since the plan (sha256 %.12s…, planned %.12s…): run plan again",
			addr, resources.AttrOr(resources.AttrString(attrs[addonFile]), "rendered by eggo"), got, want)
	}
	return content, nil
}

// addonName is the name part of an add-on's address.
func addonName(addr string) string { return strings.TrimPrefix(addr, "addon.") }
