package kube

import (
	"encoding/json"
	"fmt"
	"maps"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/eggo-project/eggo/providers/shell"
	"github.com/eggo-project/eggo/resources"
)

// The pod implementation (implementation = "pod"): the control plane's
// components run as static pods the masters' kubelets start from manifests
// in ManifestDir, kubeadm's layout. A component is described once
// (unitOptions: its binary and flags, its files); the unit and the
// manifest are two renderings of that description.

// ManifestDir is where the kubelets read static pods: kubeadm's
// /etc/kubernetes/manifests under config_dir.
func ManifestDir(c *resources.Cluster) string { return path.Join(c.ConfigDir, "manifests") }

// manifestBackupDir keeps the manifest a change replaced, for the rollback:
// outside ManifestDir, where the kubelet would run it as a second pod.
const manifestBackupDir = "/var/lib/eggo/manifests-backup"

// configLabel carries, in the manifest, a digest of the manifest and of the
// files the component reads: a changed certificate changes the manifest,
// so the kubelet starts the pod again (it watches the manifest, not the
// files); and the health check finds the pod of this manifest by it.
const configLabel = "eggo.io/config"

// configPlaceholder stands for configLabel's value in the manifest a plan
// holds: the files' digests are known only once their inputs are applied.
const configPlaceholder = "EGGO-CONFIG-DIGEST"

// staticPod is what a service run as a static pod has besides its manifest
// (the service's Unit, written at ManifestDir/UnitName).
type staticPod struct {
	ManifestDir string // the kubelet's staticPodPath
	PodName     string // the mirror pod's name: metadata.name-NODE
	Image       string // registry.k8s.io/NAME:VERSION
	Archive     string // where the host has the image's archive (imported before the manifest is written)
}

func (p *staticPod) attrs() map[string]any {
	return map[string]any{"manifest_dir": p.ManifestDir, "pod_name": p.PodName, "image": p.Image, "archive": p.Archive}
}

func parseStaticPod(v any) *staticPod {
	m, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	return &staticPod{ManifestDir: resources.AttrString(m["manifest_dir"]), PodName: resources.AttrString(m["pod_name"]),
		Image: resources.AttrString(m["image"]), Archive: resources.AttrString(m["archive"])}
}

// httpProbe is a component's health endpoint, as its pod's probes ask it.
type httpProbe struct {
	host string // "" for the pod's IP (the node's, hostNetwork)
	port int
	live string // liveness and startup path
	// ready is the readiness path ("" for none): kubeadm gives only the
	// apiserver a readiness probe.
	ready string
	plain bool // HTTP, not HTTPS (etcd's metrics listener)
}

// podOptions are what a static pod has besides its unit's description.
type podOptions struct {
	probe    httpProbe
	cpu      string            // the CPU request, kubeadm's
	memory   string            // the memory request, kubeadm's ("" for none)
	mount    []string          // host directories the component reads, mounted read-only at the same paths
	writable []string          // host directories it writes (its data), mounted read-write
	env      map[string]string // environment variables
}

// renderManifest writes a component's static pod from the description its
// unit is rendered from: kubeadm's manifest (hostNetwork,
// system-node-critical, RuntimeDefault seccomp, its probes and CPU
// request), the binary and flags of o, the image of the bundle. Strings are
// JSON-quoted, which YAML reads as they are.
func renderManifest(name, image string, o unitOptions, p podOptions) string {
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	var b strings.Builder
	fmt.Fprintf(&b, "apiVersion: v1\nkind: Pod\nmetadata:\n  name: %s\n  namespace: kube-system\n  labels:\n    component: %s\n    tier: control-plane\n    %s: %s\n",
		q(name), q(name), configLabel, q(configPlaceholder))
	b.WriteString("spec:\n  hostNetwork: true\n  priority: 2000001000\n  priorityClassName: system-node-critical\n")
	b.WriteString("  securityContext:\n    seccompProfile:\n      type: RuntimeDefault\n")
	fmt.Fprintf(&b, "  containers:\n  - name: %s\n    image: %s\n    imagePullPolicy: IfNotPresent\n    command:\n    - %s\n", q(name), q(image), q(o.exec))
	for _, a := range o.args {
		fmt.Fprintf(&b, "    - %s\n", q(a))
	}
	if len(p.env) > 0 {
		b.WriteString("    env:\n")
		for _, k := range slices.Sorted(maps.Keys(p.env)) {
			fmt.Fprintf(&b, "    - name: %s\n      value: %s\n", q(k), q(p.env[k]))
		}
	}
	probe := func(kind, path string, failures, initial, period int) {
		fmt.Fprintf(&b, "    %s:\n      httpGet:\n", kind)
		if p.probe.host != "" {
			fmt.Fprintf(&b, "        host: %s\n", q(p.probe.host))
		}
		scheme := "HTTPS"
		if p.probe.plain {
			scheme = "HTTP"
		}
		fmt.Fprintf(&b, "        path: %s\n        port: %d\n        scheme: %s\n      failureThreshold: %d\n", q(path), p.probe.port, scheme, failures)
		if initial > 0 {
			fmt.Fprintf(&b, "      initialDelaySeconds: %d\n", initial)
		}
		fmt.Fprintf(&b, "      periodSeconds: %d\n      timeoutSeconds: 15\n", period)
	}
	probe("livenessProbe", p.probe.live, 8, 10, 10)
	if p.probe.ready != "" {
		probe("readinessProbe", p.probe.ready, 3, 0, 1)
	}
	probe("startupProbe", p.probe.live, 24, 10, 10)
	fmt.Fprintf(&b, "    resources:\n      requests:\n        cpu: %s\n", q(p.cpu))
	if p.memory != "" {
		fmt.Fprintf(&b, "        memory: %s\n", q(p.memory))
	}
	writeVolumes(&b, p)
	return b.String()
}

// writeVolumes mounts the host directories a static pod reads (read-only)
// and writes, each at its own path.
func writeVolumes(b *strings.Builder, p podOptions) {
	q := func(s string) string { j, _ := json.Marshal(s); return string(j) }
	type mount struct {
		path     string
		readOnly bool
	}
	var mounts []mount
	for _, m := range p.mount {
		mounts = append(mounts, mount{m, true})
	}
	for _, m := range p.writable {
		mounts = append(mounts, mount{m, false})
	}
	if len(mounts) == 0 {
		return
	}
	slices.SortFunc(mounts, func(a, b mount) int { return strings.Compare(a.path, b.path) })
	b.WriteString("    volumeMounts:\n")
	for i, m := range mounts {
		fmt.Fprintf(b, "    - name: host-%d\n      mountPath: %s\n", i, q(m.path))
		if m.readOnly {
			b.WriteString("      readOnly: true\n")
		}
	}
	b.WriteString("  volumes:\n")
	for i, m := range mounts {
		fmt.Fprintf(b, "  - name: host-%d\n    hostPath:\n      path: %s\n      type: DirectoryOrCreate\n", i, q(m.path))
	}
}

// configDigest is configLabel's value: the manifest (as the plan holds it)
// and its files' digests in one, so the pod of each manifest has its own
// label — the old pod, still running a moment after its manifest was
// replaced, never passes for the new one. (A label value holds at most 63
// characters: 32 hex digits of a sha256.)
func configDigest(manifest string, digests map[string]any) string {
	var b strings.Builder
	b.WriteString(manifest + "\n")
	for _, p := range slices.Sorted(maps.Keys(digests)) {
		b.WriteString(p + " " + resources.AttrString(digests[p]) + "\n")
	}
	return resources.SHA256Hex(b.String())[:32]
}

// podRunning is shell that succeeds when containerd runs the container of
// the static pod podName whose configLabel is digest: the pod of this very
// manifest, as the runtime has it, not the API's mirror pod (whose update
// lags the kubelet and is what kubeadm's upgrades time out waiting for).
// It prints crashLoopText when the containers started since the manifest
// was written number crashLoopTries and none runs (attempts of the pod's
// earlier life — an identical manifest written again is the same pod — do
// not count), and sandboxFailText when no container started and the
// kubelet logged crashLoopTries failures to make the pod's sandbox since
// then (its pause image gone, a runtime that cannot run pods): either
// ends the wait long before the health timeout would.
func podRunning(podName, digest, manifest string) string {
	return `ok= tries=0
for sb in $(ctr -n k8s.io containers ls -q ` + sandboxFilter(podName, digest) + `); do
` + sandboxRuns("ok") + `
  [ -n "$uid" ] || continue
  # The kubelet logs attempt N of a container to N.log, and removes the
  # logs of all but the last dead container: the attempts since the
  # manifest was written are the newest N less the newest before it.
  logs=/var/log/pods/kube-system_` + shell.Quote(podName) + `_"$uid"/
  new=$(find "$logs" -name '*.log' -newer ` + shell.Quote(manifest) + ` 2>/dev/null | sed -n 's|.*/\([0-9]*\)\.log$|\1|p' | sort -n | tail -n1)
  old=$(find "$logs" -name '*.log' ! -newer ` + shell.Quote(manifest) + ` 2>/dev/null | sed -n 's|.*/\([0-9]*\)\.log$|\1|p' | sort -n | tail -n1)
  n=0
  [ -n "$new" ] && n=$((new - ${old:--1}))
  [ "$n" -gt "$tries" ] && tries=$n
done
if [ -z "$ok" ] && [ "$tries" -ge ` + strconv.Itoa(crashLoopTries) + ` ]; then echo "` + crashLoopText + `: $tries containers of the pod started and none runs"; fi
if [ -z "$ok" ] && [ "$tries" -eq 0 ]; then
  fails=$(journalctl -q -u kubelet -o cat --since "@$(stat -c %Y ` + shell.Quote(manifest) + `)" 2>/dev/null |
    grep -F '"CreatePodSandbox for pod failed"' | grep -F ` + shell.Quote(`pod="kube-system/`+podName+`"`) + `)
  n=$(printf '%s' "$fails" | grep -c .)
  if [ "$n" -ge ` + strconv.Itoa(crashLoopTries) + ` ]; then echo "` + sandboxFailText + `: the kubelet failed $n times to make the pod's sandbox; the last: $(printf '%s\n' "$fails" | tail -n1 | cut -c1-600)"; fi
fi
[ -n "$ok" ]`
}

// sandboxRuns is shell, in a loop over sandboxes ("$sb"), that sets uid to
// the sandbox's pod UID and flag to 1 when a container of that pod runs.
func sandboxRuns(flag string) string {
	return `  uid=$(ctr -n k8s.io containers info "$sb" | sed -n 's/.*"io.kubernetes.pod.uid": "\([^"]*\)".*/\1/p' | head -n1)
  for c in $(ctr -n k8s.io containers ls -q "labels.\"io.cri-containerd.kind\"==container,labels.\"io.kubernetes.pod.uid\"==$uid"); do
    ctr -n k8s.io tasks ls | awk -v id="$c" '$1 == id && $3 == "RUNNING" {f = 1} END {exit !f}' && ` + flag + `=1
  done`
}

// sandboxFilter is ctr's filter for the sandboxes of the static pod
// podName (with configLabel digest; any, for "").
func sandboxFilter(podName, digest string) string {
	f := `labels."io.cri-containerd.kind"==sandbox,labels."io.kubernetes.pod.name"==` + podName
	if digest != "" {
		f += `,labels."` + configLabel + `"==` + digest
	}
	return shell.Quote(f)
}

// podsRecovered is shell that succeeds when each static pod named has a
// running container, or no sandbox at all (not created yet). A master's
// controller-manager and scheduler talk to its apiserver: when it restarts
// they can exit, and the kubelet starts them again only after its back-off;
// the apiserver's restart is done (and the roll goes on) once they run.
func podsRecovered(podNames ...string) string { return podsWithContainer(false, podNames) }

// podsUp is shell that succeeds when each static pod named has a running
// container: a pod without a sandbox is not up yet.
func podsUp(podNames ...string) string { return podsWithContainer(true, podNames) }

func podsWithContainer(needSandbox bool, podNames []string) string {
	var b strings.Builder
	b.WriteString("(\n")
	for _, name := range podNames {
		fmt.Fprintf(&b, `sbs=$(ctr -n k8s.io containers ls -q %s)
`, sandboxFilter(name, ""))
		if needSandbox {
			fmt.Fprintf(&b, "[ -n \"$sbs\" ] || { echo %s \"has no sandbox yet\"; exit 1; }\n", shell.Quote(name))
		}
		fmt.Fprintf(&b, `if [ -n "$sbs" ]; then
  running=
  for sb in $sbs; do
%s
  done
  [ -n "$running" ] || { echo %s "is not running again yet"; exit 1; }
fi
`, sandboxRuns("running"), shell.Quote(name))
	}
	b.WriteString(")")
	return b.String()
}

// A static pod whose container was started crashLoopTries times and does
// not run is crash-looping, and one whose sandbox the kubelet failed to
// make that many times has no sandbox: the health wait ends there.
const (
	crashLoopTries  = 3
	crashLoopText   = "crash-looping"
	sandboxFailText = "no sandbox"
)

// controlPlaneRunner sets how s runs: its systemd unit, or, in the pod
// implementation, its static pod rendered from the same options.
func controlPlaneRunner(c *resources.Cluster, n resources.Node, spec *componentSpec, o unitOptions, p podOptions) {
	s := &spec.service
	if !c.StaticPods() {
		s.UnitName = s.Component + ".service"
		s.Unit = renderUnit(o)
		return
	}
	image := "registry.k8s.io/" + s.Component + ":" + gitVersion(c.KubernetesVersion)
	spec.deps = append(spec.deps, runAsStaticPod(c, n, s, image, resources.ControlPlaneImage(s.Component), o, p))
}

// runAsStaticPod makes s the static pod of image (whose archive is the
// bundle file archive) rendered from o and p, and returns what it waits
// for: the node's kubelet, which runs it (and, on an upgrade, rolls first:
// a new kubelet, then the pods it runs).
func runAsStaticPod(c *resources.Cluster, n resources.Node, s *service, image, archive string, o unitOptions, p podOptions) string {
	s.UnitName = s.Component + ".yaml"
	s.Unit = renderManifest(s.Component, image, o, p)
	s.Pod = &staticPod{ManifestDir: ManifestDir(c), PodName: s.Component + "-" + n.Name, Image: image, Archive: "/" + archive}
	return resources.ServiceAddr(resources.CompKubelet, n.Name)
}
