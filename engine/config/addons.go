package config

import (
	"net"
	"os"
	"regexp"
	"strconv"

	"github.com/hashicorp/hcl/v2"

	"github.com/eggo-project/eggo/resources"
)

// defaultCoreDNSUpstream forwards names outside the cluster to the
// resolvers of the node a CoreDNS pod runs on, as kubeadm's Corefile does.
var defaultCoreDNSUpstream = []string{"/etc/resolv.conf"}

// maxCoreDNSReplicas bounds coredns_replicas to something a cluster
// plausibly wants; a typo of 1000 should be an error, not 1000 pods.
const maxCoreDNSReplicas = 100

// addonName is what an add-on name must be: it is the last part of the
// address addon.NAME and the value of the eggo.io/addon label on every
// object (a label value: at most 63 characters, alphanumerics inside).
var addonName = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$`)

// decodeAddons reads the cluster's addons block: the built-in CoreDNS
// (off unless enabled: a bundle without coredns.tar could not run it) and
// the user's manifest files, each addon.<base name>.
func (l *loader) decodeAddons(dec *decoder, b *hcl.Block) resources.Addons {
	a := resources.Addons{CoreDNSReplicas: 1, CoreDNSUpstream: defaultCoreDNSUpstream}
	if b == nil {
		return a
	}
	content, diags := b.Body.Content(addonsSchema)
	dec.diags = append(dec.diags, diags...)
	attrs := content.Attributes
	if p := dec.boolPtr(attrs, "coredns"); p != nil {
		a.CoreDNS = *p
	}
	if p := dec.boolPtr(attrs, "kube_proxy"); p != nil {
		a.SkipKubeProxy = !*p
	}
	if n := dec.intPtr(attrs, "coredns_replicas", 1, maxCoreDNSReplicas); n != nil {
		a.CoreDNSReplicas = *n
	}
	if up, ok := dec.stringList(attrs, "coredns_upstream"); ok {
		a.CoreDNSUpstream = up
		for i, u := range up {
			if !validUpstream(u) {
				dec.errorf(elementRange(attrs["coredns_upstream"].Expr, i, len(up)), "Invalid coredns_upstream",
					"Each upstream is an IP address, IP:PORT, or \"/etc/resolv.conf\" (the resolvers of the node a CoreDNS pod runs on); got %s. "+
						"An empty list makes CoreDNS answer the cluster's names only.", dec.show(attrs["coredns_upstream"], u))
			}
		}
	}
	files, ok := dec.stringList(attrs, "manifests")
	if !ok {
		return a
	}
	expr := attrs["manifests"].Expr
	seen := map[string]int{}
	if a.CoreDNS {
		seen["coredns"] = -1
	}
	for i, f := range files {
		rng := elementRange(expr, i, len(files))
		abs, err := l.confinedPath(f)
		if err != nil {
			dec.errorf(rng, "Invalid manifest path", "%s.", err)
			continue
		}
		if st, err := os.Stat(abs); err != nil || !st.Mode().IsRegular() {
			why := "it does not exist"
			if err == nil {
				why = "it is not a regular file"
			} else if !os.IsNotExist(err) {
				why = err.Error()
			}
			dec.errorf(rng, "Manifest file not found",
				"The add-on manifest %s (%s) cannot be read: %s. Paths are relative to the directory of the configuration.", quoted(f), clipPath(abs), why)
			continue
		}
		name := resources.AddonNameOf(abs)
		if !addonName.MatchString(name) {
			dec.errorf(rng, "Invalid add-on name",
				"The manifest %s would be the add-on %s: its file name without the extension names the resource addon.NAME and labels its objects, "+
					"so it must be lowercase letters, digits or '-', start and end with a letter or digit, and be at most 63 characters. Rename the file.",
				quoted(f), quoted(name))
			continue
		}
		if j, dup := seen[name]; dup {
			other := "the built-in CoreDNS add-on (coredns = true)"
			if j >= 0 {
				other = quoted(files[j])
			}
			dec.errorf(rng, "Duplicate add-on",
				"The manifest %s would be %s, as %s is. Rename one of the files.", quoted(f), resources.AddonAddr(name), other)
			continue
		}
		seen[name] = i
		a.Manifests = append(a.Manifests, resources.AddonManifest{Name: name, Path: abs, Source: source(rng), Range: sourceRange(rng)})
	}
	return a
}

// validUpstream: an IP, IP:PORT, or the pod's own resolv.conf (the only
// file a CoreDNS pod has).
func validUpstream(s string) bool {
	if s == "/etc/resolv.conf" || net.ParseIP(s) != nil {
		return true
	}
	host, port, err := net.SplitHostPort(s)
	if err != nil || net.ParseIP(host) == nil {
		return false
	}
	n, err := strconv.Atoi(port)
	return err == nil && n > 0 && n < 65536
}

// checkAddonNodes: CoreDNS's pods need a Node to run on: a worker, or a
// master when schedule_on_masters lets them.
func checkAddonNodes(cb *clusterBlock, byRole map[string][]placedNode) hcl.Diagnostics {
	if !cb.model.Addons.CoreDNS || len(byRole["worker"]) > 0 || cb.addons == nil ||
		cb.model.ScheduleOnMasters && len(byRole["master"]) > 0 {
		return nil
	}
	rng := cb.addons.DefRange
	if content, _, _ := cb.addons.Body.PartialContent(addonsSchema); content != nil {
		if a := content.Attributes["coredns"]; a != nil {
			rng = a.Range
		}
	}
	return hcl.Diagnostics{diagf(rng, "CoreDNS without workers",
		"The coredns add-on runs as pods, and no node has the worker role (and the masters are tainted). Add a worker, set schedule_on_masters = true in the cluster block, or set coredns = false.")}
}
