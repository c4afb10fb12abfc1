package kube

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/eggo-project/eggo/providers/shell"
	"github.com/eggo-project/eggo/resources"
)

// containerd 1.x → 2.x changes more than a program: the CRI plugin's
// configuration schema (2 → 3), its plugins' names and where the sandbox
// image comes from. containerd's upgrade guide drains a node first, and so
// does eggo: when a Node's containerd moves to another major release, the
// Node is cordoned and drained (through a master, as removing a Node is),
// containerd restarts on its new program and configuration, and the Node is
// uncordoned once containerd answers again. Its workloads come back there
// as the scheduler places them. A failed restart leaves it cordoned.

// containerdMajor is the containerd major release a containerd service's
// version runs: its release's ("containerd 1.6.20 sha256:…"), or, for a
// record made before eggo kept releases, the one eggo's table gives the
// minor of the Kubernetes version its node's kubelet runs (kubelet); 0
// when it cannot tell.
func containerdMajor(version, kubelet string) int {
	if rel := programRelease(version); rel != "" {
		major, _, _ := strings.Cut(rel, ".")
		n, err := strconv.Atoi(major)
		if err == nil {
			return n
		}
		return 0
	}
	if m, err := resources.MinorOf(kubelet); err == nil {
		return m.ContainerdMajor
	}
	return 0
}

// containerdMajorMove is the major releases a containerd change moves
// between (from ≠ to), or ok false when it does not move one (or eggo
// cannot tell).
func containerdMajorMove(rc *resources.RunContext, prior *resources.Object, desired resources.Desired) (from, to int, ok bool) {
	if prior == nil || prior.Attrs == nil || resources.AttrString(desired.Attrs[svcComponent]) != resources.CompContainerd {
		return 0, 0, false
	}
	before, after := resources.AttrString(prior.Attrs[svcVersion]), resources.AttrString(desired.Attrs[svcVersion])
	if sameProgram(before, after) {
		return 0, 0, false
	}
	kubelet := ""
	if rc != nil {
		if o, found := rc.RecordedAt(resources.ServiceAddr(resources.CompKubelet, desired.Node)); found {
			kubelet = resources.AttrString(o.Attrs[svcVersion])
		}
	}
	from, to = containerdMajor(before, kubelet), containerdMajor(after, "")
	return from, to, from != 0 && to != 0 && from != to
}

// drainForContainerd cordons and drains node's Node for a containerd major
// move; the returned func uncordons it. Without a recorded Node (a node
// that never joined) there is nothing to drain.
func drainForContainerd(ctx context.Context, rc *resources.RunContext, addr, node string, from, to int) (uncordon func(context.Context) error, err error) {
	rec, ok := rc.RecordedAt(K8sNodeAddr(node))
	if !ok || rec.Pending {
		return func(context.Context) error { return nil }, nil
	}
	name := resources.AttrString(rec.Attrs[k8sNodeName])
	via, _ := rec.Attrs[k8sNodeVia].(map[string]any)
	rc.Progress(addr, fmt.Sprintf("draining node %s: containerd %d → %d", name, from, to))
	if _, err := KubectlVia(ctx, rc, addr, via, true, func(k string) string { return drainScript(k, name) }); err != nil {
		return nil, fmt.Errorf("%s: draining node %s before containerd %d → %d: %w", addr, name, from, to, err)
	}
	return func(ctx context.Context) error {
		rc.Progress(addr, "uncordoning node "+name)
		if _, err := KubectlVia(ctx, rc, addr, via, true, func(k string) string { return k + " uncordon " + shell.Quote(name) + " >/dev/null\n" }); err != nil {
			return fmt.Errorf("%s: uncordoning node %s after containerd %d → %d (containerd runs; `kubectl uncordon %s` ends it): %w", addr, name, from, to, name, err)
		}
		return nil
	}, nil
}

// drainScript cordons and drains a Node, as removing one does: DaemonSets'
// pods stay (their controller would put them back at once), emptyDir data
// goes with its pods, and pods no controller owns are deleted.
func drainScript(kubectl, name string) string {
	q := shell.Quote(name)
	return "set -e\n" + kubectl + " cordon " + q + " >/dev/null\n" + drainCommand(kubectl, q)
}

// drainCommand drains the Node named quoted (shell-quoted already).
func drainCommand(kubectl, quoted string) string {
	return kubectl + " drain " + quoted + " --ignore-daemonsets --delete-emptydir-data --force --timeout=180s >/dev/null\n"
}
