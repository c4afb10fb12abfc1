package kube

import (
	"context"
	"fmt"
	"maps"
	"path"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/eggo-project/eggo/internal/text"
	"github.com/eggo-project/eggo/providers/shell"
	"github.com/eggo-project/eggo/resources"
)

// Kubernetes stops serving a deprecated API version in the release its
// deprecation named (flowcontrol.apiserver.k8s.io/v1beta3 in 1.32,
// storage.k8s.io/v1beta1 VolumeAttributesClass in 1.37, …): a client or a
// manifest still on one fails once the apiservers run that release.
// kube-apiserver counts the requests it has served for such APIs since it
// started, labelled with the release that removes each (the gauge
// apiserver_requested_deprecated_apis, where Kubernetes' deprecation guide
// sends operators; kubent and pluto answer the same question from
// manifests and Helm releases). A plan that moves the apiservers up a minor
// asks every running one and warns of each API clients asked for that a
// release up to the new minor removes — before the apply, while the
// clients can still be moved.

// deprecatedAPIsMetric is kube-apiserver's gauge of the deprecated APIs it
// served.
const deprecatedAPIsMetric = "apiserver_requested_deprecated_apis"

// requestedAPI is one deprecated API clients asked an apiserver for.
type requestedAPI struct {
	group, version, resource, subresource string
	removed                               int // the minor that no longer serves it (32 for 1.32)
}

// String is "flowcontrol.apiserver.k8s.io/v1beta3 flowschemas" (a
// subresource after a slash).
func (a requestedAPI) String() string {
	gv := a.version
	if a.group != "" {
		gv = a.group + "/" + a.version
	}
	r := a.resource
	if a.subresource != "" {
		r += "/" + a.subresource
	}
	return gv + " " + r
}

var metricLabel = regexp.MustCompile(`(\w+)="((?:[^"\\]|\\.)*)"`)

// parseRequestedAPIs reads the gauge's samples from an apiserver's
// /metrics text: only those that name a release that removes the API.
func parseRequestedAPIs(metrics string) []requestedAPI {
	var out []requestedAPI
	for _, line := range strings.Split(metrics, "\n") {
		rest, ok := strings.CutPrefix(line, deprecatedAPIsMetric+"{")
		if !ok {
			continue
		}
		labels, _, ok := strings.Cut(rest, "}")
		if !ok {
			continue
		}
		l := map[string]string{}
		for _, m := range metricLabel.FindAllStringSubmatch(labels, -1) {
			l[m[1]] = m[2]
		}
		v, ok := resources.ParseKubernetesVersion(l["removed_release"] + ".0")
		if !ok || l["version"] == "" || l["resource"] == "" {
			continue
		}
		out = append(out, requestedAPI{l["group"], l["version"], l["resource"], l["subresource"], v.Minor})
	}
	return out
}

// apiserverMinorMove is the minor the plan's apiservers move from (the
// oldest recorded) and to (the newest planned); to is 0 when no apiserver
// moves up a minor.
func apiserverMinorMove(r resources.PlanReview) (from, to int) {
	for _, o := range r.Recorded {
		if resources.AttrString(o.Attrs[svcComponent]) != resources.CompAPIServer {
			continue
		}
		if v, ok := resources.ParseKubernetesVersion(resources.AttrString(o.Attrs[svcVersion])); ok && (from == 0 || v.Minor < from) {
			from = v.Minor
		}
	}
	for _, ch := range r.Changes {
		if ch.Action == resources.Delete || resources.AttrString(ch.After[svcComponent]) != resources.CompAPIServer {
			continue
		}
		if v, ok := resources.ParseKubernetesVersion(resources.AttrString(ch.After[svcVersion])); ok && v.Minor > to {
			to = v.Minor
		}
	}
	if from == 0 || to <= from {
		return 0, 0
	}
	return from, to
}

// removedAPIsWarning asks every running apiserver of a plan that moves
// them up a minor which removed APIs clients asked it for, and names them
// ("" when none, or when the plan did not refresh: it asks nothing then).
func removedAPIsWarning(r resources.PlanReview) string {
	from, to := apiserverMinorMove(r)
	if to == 0 {
		return ""
	}
	if r.Run == nil {
		return fmt.Sprintf("this plan moves the apiservers from 1.%d to 1.%d without a refresh (-refresh=false): eggo did not ask them which "+
			"API versions 1.%d no longer serves clients still ask for", from, to, to)
	}
	askedOf := map[requestedAPI][]string{} // an API → the masters asked for it
	var unasked []string
	for _, o := range r.Recorded {
		if o.Pending || resources.AttrString(o.Attrs[svcComponent]) != resources.CompAPIServer {
			continue
		}
		apis, err := requestedAPIsOf(r.Ctx, r.Run, o)
		if err != nil {
			unasked = append(unasked, fmt.Sprintf("%s (%v)", o.Node, err))
			continue
		}
		for _, a := range apis {
			if a.removed <= to && !slices.Contains(askedOf[a], o.Node) {
				askedOf[a] = append(askedOf[a], o.Node)
			}
		}
	}
	var b strings.Builder
	if len(askedOf) > 0 {
		apis := slices.SortedFunc(maps.Keys(askedOf), func(a, b requestedAPI) int { return strings.Compare(a.String(), b.String()) })
		var names []string
		for _, a := range apis {
			names = append(names, fmt.Sprintf("%s (gone in 1.%d; asked of %s)", a, a.removed, strings.Join(askedOf[a], ", ")))
		}
		fmt.Fprintf(&b, "Kubernetes 1.%d does not serve API versions that clients asked the apiservers for since they started (kube-apiserver's %s): %s. "+
			"Move the clients and manifests that use them to the versions that replace them (https://kubernetes.io/docs/reference/using-api/deprecation-guide/) before the upgrade: after it, their requests fail",
			to, deprecatedAPIsMetric, text.Some(names, 10))
	}
	if len(unasked) > 0 {
		if b.Len() > 0 {
			b.WriteString(". ")
		}
		fmt.Fprintf(&b, "eggo could not ask the apiservers of %s which API versions 1.%d no longer serves clients still ask for", text.Some(unasked, 5), to)
	}
	return b.String()
}

// requestedAPIsOf asks the apiserver o records, on its own master, for the
// deprecated APIs it has served, through the master's admin kubeconfig
// (which names that master's own apiserver).
func requestedAPIsOf(ctx context.Context, rc *resources.RunContext, o resources.Object) ([]requestedAPI, error) {
	kubeconfig := ""
	for _, f := range parseService(o.Attrs).Files {
		if path.Base(f.Path) == "admin.conf" {
			kubeconfig = f.Path
		}
	}
	if kubeconfig == "" {
		return nil, fmt.Errorf("%s records no admin kubeconfig", o.Addr)
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	conn, err := serviceConn(ctx, rc, o.Node, o.Addr, o.Attrs)
	if err != nil {
		return nil, err
	}
	// Only the gauge's lines cross the connection: /metrics is megabytes.
	script := kubectlWith(kubeconfig) + " get --raw /metrics | grep " + shell.Quote("^"+deprecatedAPIsMetric+"{") + " || true"
	out, err := resources.RunScript(ctx, conn, script, false)
	if err != nil {
		return nil, err
	}
	return parseRequestedAPIs(out), nil
}
