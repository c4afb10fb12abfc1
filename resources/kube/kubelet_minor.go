package kube

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strings"
	"time"

	"github.com/eggo-project/eggo/providers/shell"
	"github.com/eggo-project/eggo/resources"
)

// A kubelet of another minor can decode a running static pod into another
// hash: it gives the pod a new uid and replaces it a few seconds after its
// start, killing the old pod's containers without their grace period. An
// apiserver killed so skips its shutdown delay, and the requests the load
// balancers had sent it are closed unanswered (the upgrade e2e saw "EOF"
// through haproxy, every connection to that master cut at once). So when
// the kubelet of a node that runs eggo's static pods moves to another
// minor, the kubelet that started them stops them first, gracefully —
// their manifests leave the manifest directory —, the new kubelet starts,
// the manifests come back and the new kubelet starts the pods as its own;
// the restart is done once they run again, and an apiserver among them is
// still ready once the load balancers have had time to take it back (as
// its own restart waits: apiServerHealth).

// staticPodComponents are the components eggo can run as static pods on a
// node, at the address of their record.
var staticPodComponents = []func(node string) string{
	func(n string) string { return resources.ServiceAddr(resources.CompAPIServer, n) },
	func(n string) string { return resources.ServiceAddr(resources.CompControllerManager, n) },
	func(n string) string { return resources.ServiceAddr(resources.CompScheduler, n) },
	EtcdMemberAddr,
}

// heldStaticPods is the static pods of eggo's that run on a kubelet's node
// when the kubelet's change moves it to another minor; nil otherwise.
func heldStaticPods(rc *resources.RunContext, prior *resources.Object, desired resources.Desired) []service {
	if rc == nil || prior == nil || prior.Attrs == nil || resources.AttrString(desired.Attrs[svcComponent]) != resources.CompKubelet {
		return nil
	}
	before, okB := resources.ParseKubernetesVersion(resources.AttrString(prior.Attrs[svcVersion]))
	after, okA := resources.ParseKubernetesVersion(resources.AttrString(desired.Attrs[svcVersion]))
	if !okB || !okA || before.Minor == after.Minor && before.Major == after.Major {
		return nil
	}
	var pods []service
	for _, addr := range staticPodComponents {
		if o, ok := rc.RecordedAt(addr(desired.Node)); ok && o.Attrs != nil {
			if s := parseService(o.Attrs); s.Pod != nil && s.UnitName != "" {
				pods = append(pods, s)
			}
		}
	}
	return pods
}

// staticPodsHeldDir keeps the manifests of the static pods stopped for a
// kubelet's restart: outside the manifest directory, which the kubelet
// watches.
const staticPodsHeldDir = "/var/lib/eggo/manifests-held"

func heldPath(s service) string { return path.Join(staticPodsHeldDir, s.UnitName) }

// holdScript moves the pods' manifests out and waits for their containers
// to stop. A manifest already held (an apply that stopped between the two
// moves) stays held.
func holdScript(pods []service) string {
	var b strings.Builder
	b.WriteString("mkdir -p " + shell.Quote(staticPodsHeldDir) + "\n")
	for _, s := range pods {
		fmt.Fprintf(&b, "if [ -f %[1]s ]; then mv -f %[1]s %[2]s; fi\n", shell.Quote(s.unitPath()), shell.Quote(heldPath(s)))
	}
	for _, s := range pods {
		b.WriteString(waitPodGone(s.Pod.PodName))
	}
	return b.String()
}

// releaseScript puts the held manifests back. One written again meanwhile
// (a later apply found it missing and rewrote it) wins over the held copy.
func releaseScript(pods []service) string {
	var b strings.Builder
	for _, s := range pods {
		fmt.Fprintf(&b, "if [ -f %[2]s ]; then if [ -f %[1]s ]; then rm -f %[2]s; else mv -f %[2]s %[1]s; fi; fi\n", shell.Quote(s.unitPath()), shell.Quote(heldPath(s)))
	}
	b.WriteString("rmdir " + shell.Quote(staticPodsHeldDir) + " 2>/dev/null || true\n")
	return b.String()
}

// podsBackScript succeeds once every pod runs again and an apiserver among
// them is ready, and still ready after lbReaddTime.
func podsBackScript(pods []service) string {
	apiserver := ""
	for _, s := range pods {
		if s.Component == resources.CompAPIServer {
			// admin.conf beside the manifest directory names this
			// master's own apiserver (localAPIServer).
			apiserver = kubectlWith(path.Join(path.Dir(s.Pod.ManifestDir), "admin.conf"))
		}
	}
	script := podsUp(podNames(pods)...)
	if apiserver != "" {
		script += fmt.Sprintf(" && %[1]s get --raw /readyz >/dev/null && sleep %[2]d && %[1]s get --raw /readyz >/dev/null", apiserver, int(lbReaddTime/time.Second))
	}
	return script
}

// updateHoldingStaticPods restarts a kubelet onto another minor with the
// node's static pods stopped by the kubelet that started them, and waits
// for them to run again under the new one. The manifests come back even
// when the kubelet's restart fails: the old program's pods run again then.
func updateHoldingStaticPods(ctx context.Context, rc *resources.RunContext, prior resources.Object, desired resources.Desired, pods []service) (resources.Attrs, error) {
	var held *serviceInstall
	hold := func(ctx context.Context, in *serviceInstall) error {
		rc.Progress(desired.Addr, "stopping the static pods before the kubelet's minor changes: "+strings.Join(podNames(pods), ", "))
		held = in
		if _, err := resources.RunScript(ctx, in.conn, holdScript(pods), true); err != nil {
			return fmt.Errorf("%s: stopping the static pods before the kubelet's restart: %w", desired.Addr, err)
		}
		return nil
	}
	attrs, err := updateService(ctx, rc, prior, desired, hold)
	if held == nil {
		return attrs, err
	}
	if _, rerr := resources.RunScript(context.WithoutCancel(ctx), held.conn, releaseScript(pods), true); rerr != nil {
		return attrs, errors.Join(err, fmt.Errorf("%s: putting the static pods' manifests back (from %s): %w", desired.Addr, staticPodsHeldDir, rerr))
	}
	if err != nil {
		return attrs, err
	}
	rc.Progress(desired.Addr, "waiting for the static pods to run under the new kubelet")
	if err := held.healthyWith(ctx, podsBackScript(pods)); err != nil {
		return attrs, fmt.Errorf("the static pods the kubelet started again: %w", err)
	}
	return attrs, nil
}

// podNames are the pods' names.
func podNames(pods []service) []string {
	names := make([]string, len(pods))
	for i, s := range pods {
		names[i] = s.Pod.PodName
	}
	return names
}
