package resources

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
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

func init() { Register(Addon{}) }

// AddonAddr is an add-on's address: addon.coredns.
func AddonAddr(name string) string { return "addon." + name }

// AddonLabel is set on every object of an add-on (value: the add-on's
// name), so `kubectl get all -A -l eggo.io/addon=coredns` finds them.
const AddonLabel = "eggo.io/addon"

const (
	addonSHA256  = "manifest_sha256"
	addonFile    = "file"    // a user add-on's manifest file
	addonCoreDNS = "coredns" // the built-in CoreDNS add-on's settings
	addonVia     = "via"     // {node, address, connection, kubeconfig}: the master eggo talks to the API through
	addonObjects = "objects" // [{api_version, kind, namespace, name}] applied
	addonMissing = "missing" // objects a refresh did not find ("Deployment kube-system/coredns")
)

// Name is "addon".
func (Addon) Name() string { return "addon" }

// Schema describes an add-on.
func (Addon) Schema() Schema {
	return Schema{Attributes: map[string]AttrSchema{
		addonSHA256:  {Description: "sha256 of the manifest as applied (the content is not kept: it may hold Secrets)"},
		addonFile:    {Description: "the manifest file of a user add-on"},
		addonCoreDNS: {Description: "the built-in CoreDNS add-on's settings: image, replicas, DNS address and domain, upstream"},
		addonVia:     {Description: "the master whose admin kubeconfig eggo uses"},
		addonObjects: {Description: "the objects the manifest applied", Computed: true},
		addonMissing: {Description: "objects the last refresh did not find in the cluster", Computed: true},
	}}
}

// Expand returns the built-in CoreDNS add-on when enabled and one add-on per
// user manifest. They wait for every apiserver and for one worker's kubelet
// and kube-proxy: pods need a node to run on, and waiting for every worker
// would let one broken worker hold back the cluster's DNS.
func (Addon) Expand(c *Cluster) ([]Desired, error) {
	masters := c.NodesWithRole("master")
	if len(masters) == 0 || (!c.Addons.CoreDNS && len(c.Addons.Manifests) == 0) {
		return nil, nil
	}
	via := map[string]any{
		"node":       masters[0].Name,
		"address":    masters[0].Address,
		"connection": ConnectionAttrs(masters[0]),
		"kubeconfig": AdminKubeconfigPath(c),
	}
	var deps []string
	for _, m := range masters {
		deps = append(deps, ServiceAddr(CompAPIServer, m.Name))
	}
	workers := c.NodesWithRole("worker")
	if len(workers) > 0 {
		deps = append(deps, ServiceAddr(CompKubelet, workers[0].Name))
		if !c.Addons.SkipKubeProxy {
			deps = append(deps, ServiceAddr(CompKubeProxy, workers[0].Name))
		}
	}
	var out []Desired
	if c.Addons.CoreDNS {
		d, err := coreDNSDesired(c, workers)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	seen := map[string]string{}
	if c.Addons.CoreDNS {
		seen[coreDNSAddon] = c.Source
	}
	for _, m := range c.Addons.Manifests {
		if first, dup := seen[m.Name]; dup {
			return nil, fmt.Errorf("%s: manifest %s would be %s, which %s already declares", m.Source, m.Path, AddonAddr(m.Name), first)
		}
		seen[m.Name] = m.Source
		content, err := os.ReadFile(m.Path)
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", m.Source, AddonAddr(m.Name), err)
		}
		out = append(out, Desired{
			Addr:   AddonAddr(m.Name),
			Kind:   "addon",
			Source: m.Source,
			Attrs:  Attrs{addonSHA256: sha256Hex(string(content)), addonFile: m.Path},
		})
	}
	for i := range out {
		out[i].Attrs[addonVia] = via
		out[i].Attrs = Attrs(Normalize(map[string]any(out[i].Attrs)).(map[string]any))
		out[i].DependsOn = slices.Clone(deps)
	}
	return out, nil
}

// manifestOf is the manifest an add-on's attributes describe: rendered for
// CoreDNS, read from its file otherwise. It must still be what the plan
// hashed: a file edited between plan and apply is refused, not applied
// unseen.
func manifestOf(addr string, attrs Attrs) (string, error) {
	var content string
	if s, ok := attrs[addonCoreDNS].(map[string]any); ok {
		var err error
		if content, err = renderCoreDNS(coreDNSSettingsFromAttrs(s)); err != nil {
			return "", fmt.Errorf("%s: rendering its manifest: %w", addr, err)
		}
	} else {
		file := attrString(attrs[addonFile])
		b, err := os.ReadFile(file)
		if err != nil {
			return "", fmt.Errorf("%s: reading its manifest: %w", addr, err)
		}
		content = string(b)
	}
	if got, want := sha256Hex(content), attrString(attrs[addonSHA256]); got != want {
		return "", fmt.Errorf("%s: the manifest %s changed since the plan (sha256 %.12s…, planned %.12s…): run plan again",
			addr, attrOr(attrString(attrs[addonFile]), "rendered by eggo"), got, want)
	}
	return content, nil
}

// addonName is the name part of an add-on's address.
func addonName(addr string) string { return strings.TrimPrefix(addr, "addon.") }

// AddonNameOf is the add-on name of a manifest file: its base name without
// the extension (manifests/metrics-server.yaml → metrics-server).
func AddonNameOf(file string) string {
	base := filepath.Base(file)
	return strings.TrimSuffix(base, filepath.Ext(base))
}
