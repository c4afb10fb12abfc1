package addon

import (
	"context"
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/eggo-project/eggo/providers/shell"
	"github.com/eggo-project/eggo/resources"
	"github.com/eggo-project/eggo/resources/kube"
)

// addonHealthTimeout bounds the wait for one workload of an add-on to roll
// out (its available replicas reaching the desired count).
var addonHealthTimeout = kube.DefaultHealthTimeout

// Read finds the recorded objects that are no longer in the cluster. Their
// names go into the computed missing attribute, which Plan turns into an
// update that applies the manifest again.
func (Addon) Read(ctx context.Context, rc *resources.RunContext, prior resources.Object) (resources.Attrs, []resources.Reason, error) {
	objs := objectsOf(prior.Attrs[addonObjects])
	live := addonAttrsCopy(prior.Attrs)
	delete(live, addonMissing)
	if len(objs) == 0 {
		return live, nil, nil
	}
	via, _ := prior.Attrs[addonVia].(map[string]any)
	out, err := kube.KubectlVia(ctx, rc, prior.Addr, via, false, func(k string) string { return addonReadScript(k, objs) })
	if err != nil {
		return nil, nil, err
	}
	missing := indexedLines(out, "missing", objs)
	if len(missing) == 0 {
		return live, nil, nil
	}
	names := make([]any, len(missing))
	for i, o := range missing {
		names[i] = o.String()
	}
	live[addonMissing] = names
	return live, []resources.Reason{{Code: resources.ReasonDrift, Detail: "missing from the cluster: " + strings.Join(resources.StringList(names), ", ")}}, nil
}

// Plan applies again when the manifest or the master changed, when a
// refresh found objects missing, or after an interrupted apply. Moving a
// manifest file without changing it is no change.
func (a Addon) Plan(_ context.Context, _ *resources.RunContext, prior *resources.Object, desired resources.Desired) (resources.Change, error) {
	ch := resources.Change{Addr: desired.Addr, Kind: desired.Kind, Node: desired.Node, After: withUnknownObjects(desired.Attrs)}
	if prior == nil || prior.Attrs == nil {
		ch.Action, ch.Reasons = resources.Create, []resources.Reason{{Code: resources.ReasonNew}}
		return ch, nil
	}
	ch.Before = prior.Attrs
	var changed []string
	for _, name := range resources.ChangedAttrs(a.Schema(), prior.Attrs, desired.Attrs) {
		if name != addonFile {
			changed = append(changed, name)
		}
	}
	missing := missingNames(prior.Attrs[addonMissing])
	if len(changed) == 0 && len(missing) == 0 && !prior.Pending {
		ch.Action, ch.After = resources.NoOp, prior.Attrs
		return ch, nil
	}
	ch.Action, ch.Changed = resources.Update, changed
	if len(changed) > 0 {
		ch.Reasons = append(ch.Reasons, resources.Reason{Code: resources.ReasonConfig, Detail: strings.Join(changed, ", ")})
	}
	if len(missing) > 0 {
		ch.Reasons = append(ch.Reasons, resources.Reason{Code: resources.ReasonDrift, Detail: "missing from the cluster: " + strings.Join(missing, ", ")})
	}
	if prior.Pending {
		ch.Reasons = append(ch.Reasons, resources.Reason{Code: resources.ReasonPending, Detail: "a previous apply of it did not finish"})
	}
	return ch, nil
}

func withUnknownObjects(attrs resources.Attrs) resources.Attrs {
	out := addonAttrsCopy(attrs)
	out[addonObjects] = resources.Unknown{}
	return out
}

// Create applies the manifest and waits for its workloads.
func (Addon) Create(ctx context.Context, rc *resources.RunContext, desired resources.Desired, _ resources.Change) (resources.Attrs, error) {
	return applyAddon(ctx, rc, desired, nil)
}

// Update applies the manifest again, prunes the objects that left it, and
// waits for its workloads.
func (Addon) Update(ctx context.Context, rc *resources.RunContext, prior resources.Object, desired resources.Desired, _ resources.Change) (resources.Attrs, error) {
	return applyAddon(ctx, rc, desired, prior.Attrs)
}

func applyAddon(ctx context.Context, rc *resources.RunContext, desired resources.Desired, prior resources.Attrs) (resources.Attrs, error) {
	addr, name := desired.Addr, addonName(desired.Addr)
	before := objectsOf(prior[addonObjects])
	manifest, err := manifestOf(addr, desired.Attrs)
	if err != nil {
		return prior, err
	}
	via, _ := desired.Attrs[addonVia].(map[string]any)
	// The objects first, read by kubectl itself (eggo parses no YAML), so
	// that state names them before any is created.
	out, err := kube.KubectlVia(ctx, rc, addr, via, false, func(k string) string { return addonManifestScript(k, manifest, name, false) })
	if err != nil {
		return prior, err
	}
	objs, err := parseObjects(out)
	if err != nil {
		return prior, fmt.Errorf("%s: %w", addr, err)
	}
	if len(objs) == 0 {
		return prior, fmt.Errorf("%s: the manifest holds no Kubernetes object", addr)
	}
	attrs := addonAttrsCopy(desired.Attrs)
	attrs[addonObjects] = objectsAttr(union(objs, before))
	if err := rc.Checkpoint(addr, attrs); err != nil {
		return prior, err
	}
	rc.Progress(addr, fmt.Sprintf("applying %d objects", len(objs)))
	if _, err := kube.KubectlVia(ctx, rc, addr, via, true, func(k string) string { return addonManifestScript(k, manifest, name, true) }); err != nil {
		return attrs, err
	}
	if gone := pruned(before, objs); len(gone) > 0 {
		rc.Progress(addr, "pruning "+objectNames(gone))
		if _, err := kube.KubectlVia(ctx, rc, addr, via, true, func(k string) string { return addonDeleteScript(k, name, gone) }); err != nil {
			return attrs, err
		}
	}
	attrs[addonObjects] = objectsAttr(objs)
	return attrs, addonHealthy(ctx, rc, addr, via, objs)
}

// addonHealthy waits for every Deployment, DaemonSet and StatefulSet of the
// add-on to roll out: available replicas equal to desired.
func addonHealthy(ctx context.Context, rc *resources.RunContext, addr string, via map[string]any, objs []addonObject) error {
	var workloads []addonObject
	for _, o := range objs {
		if o.workload() {
			workloads = append(workloads, o)
		}
	}
	if len(workloads) == 0 {
		return nil
	}
	rc.Progress(addr, "waiting for "+objectNames(workloads)+" to be available")
	// The script reports rather than fails: kubectlVia retries failures,
	// and a wait that timed out must not be waited out four times.
	out, err := kube.KubectlVia(ctx, rc, addr, via, false, func(k string) string {
		return addonHealthScript(k, workloads, addonHealthTimeout)
	})
	if err != nil {
		return err
	}
	var failed []string
	for _, line := range strings.Split(out, "\n") {
		rest, ok := strings.CutPrefix(line, "fail ")
		if !ok {
			continue
		}
		idx, detail, _ := strings.Cut(rest, " ")
		if i, err := strconv.Atoi(idx); err == nil && i >= 0 && i < len(workloads) {
			failed = append(failed, fmt.Sprintf("%s is not available within %s: %s", workloads[i], addonHealthTimeout, strings.TrimSpace(detail)))
		}
	}
	if len(failed) > 0 {
		return fmt.Errorf("%s: add-on %s unhealthy: %s", addr, addonName(addr), strings.Join(failed, "; "))
	}
	if oks := indexedLines(out, "ok", workloads); len(oks) != len(workloads) {
		return fmt.Errorf("%s: add-on %s: the health check reported %d of %d workloads: %q", addr, addonName(addr), len(oks), len(workloads), out)
	}
	return nil
}

// Delete removes the recorded objects, last first. `eggo destroy` skips it:
// the whole cluster goes, and with it every master it could talk through.
func (Addon) Delete(ctx context.Context, rc *resources.RunContext, prior resources.Object) (resources.Attrs, error) {
	if rc.Destroy {
		return nil, nil
	}
	objs := objectsOf(prior.Attrs[addonObjects])
	if len(objs) == 0 {
		return nil, nil
	}
	reversed := make([]addonObject, len(objs))
	for i, o := range objs {
		reversed[len(objs)-1-i] = o
	}
	via, _ := prior.Attrs[addonVia].(map[string]any)
	rc.Progress(prior.Addr, "deleting "+objectNames(reversed))
	if _, err := kube.KubectlVia(ctx, rc, prior.Addr, via, true, func(k string) string { return addonDeleteScript(k, addonName(prior.Addr), reversed) }); err != nil {
		return prior.Attrs, err
	}
	return nil, nil
}

// addonManifestScript writes the manifest to a private temporary file on
// the master (base64 in the script: any content survives the heredoc),
// labels every object eggo.io/addon=NAME with kubectl's local mode, and
// either prints the objects as JSON (apply false) or applies them
// server-side as field manager eggo. The manifest never travels on a
// command line, where ps would show it.
func addonManifestScript(kubectl, manifest, name string, apply bool) string {
	var b strings.Builder
	b.WriteString("set -e\numask 077\nd=$(mktemp -d)\ntrap 'rm -rf \"$d\"' EXIT\nbase64 -d >\"$d/manifest\" <<'EGGO_MANIFEST'\n")
	enc := base64.StdEncoding.EncodeToString([]byte(manifest))
	for len(enc) > 76 {
		b.WriteString(enc[:76] + "\n")
		enc = enc[76:]
	}
	b.WriteString(enc + "\nEGGO_MANIFEST\n")
	label := fmt.Sprintf("%s label --local -f \"$d/manifest\" %s --overwrite -o json", kubectl, shell.Quote(AddonLabel+"="+name))
	if !apply {
		b.WriteString(label + "\n")
		return b.String()
	}
	b.WriteString(label + " >\"$d/labelled.json\"\n")
	b.WriteString(kubectl + " apply --server-side --force-conflicts --field-manager=eggo -f \"$d/labelled.json\" >/dev/null\n")
	return b.String()
}

// kubectlGone matches kubectl's errors for an object whose kind the API no
// longer serves (its CRD was deleted): the object is gone too.
const kubectlGone = `grep -qE "doesn't have a resource type|no matches for kind|could not find the requested resource" "$d/err"`

// addonReadScript prints "missing I" for every object I not found.
func addonReadScript(kubectl string, objs []addonObject) string {
	var b strings.Builder
	b.WriteString("set -e\nd=$(mktemp -d)\ntrap 'rm -rf \"$d\"' EXIT\n")
	b.WriteString("check() {\n  i=$1; shift\n  if out=$(" + kubectl + " get \"$@\" --ignore-not-found -o name 2>\"$d/err\"); then\n" +
		"    [ -n \"$out\" ] || echo \"missing $i\"\n  elif " + kubectlGone + "; then\n    echo \"missing $i\"\n" +
		"  else\n    cat \"$d/err\" >&2; exit 1\n  fi\n}\n")
	for i, o := range objs {
		fmt.Fprintf(&b, "check %d %s\n", i, o.kubectlArgs())
	}
	return b.String()
}

// addonDeleteScript deletes the add-on name's objects in the order given;
// one already gone (or whose kind is gone) is no error. Only an object
// that carries the add-on's label (AddonLabel=name, which eggo gives every
// object it applies) is deleted: the objects are the state's, and
// whoever can write the state need not be anyone eggo would let choose
// what it deletes from the cluster. One whose label was taken off is left.
func addonDeleteScript(kubectl, name string, objs []addonObject) string {
	label := shell.Quote("{.metadata.labels." + strings.ReplaceAll(AddonLabel, ".", `\.`) + "}")
	var b strings.Builder
	b.WriteString("set -e\nd=$(mktemp -d)\ntrap 'rm -rf \"$d\"' EXIT\n")
	b.WriteString("del() {\n  if ! l=$(" + kubectl + " get \"$@\" --ignore-not-found -o jsonpath=" + label + " 2>\"$d/err\"); then\n" +
		"    " + kubectlGone + " && return 0\n    cat \"$d/err\" >&2; exit 1\n  fi\n" +
		"  [ \"$l\" = " + shell.Quote(name) + " ] || return 0\n" +
		"  if ! " + kubectl + " delete \"$@\" --ignore-not-found --wait=false >/dev/null 2>\"$d/err\"; then\n" +
		"    " + kubectlGone + " || { cat \"$d/err\" >&2; exit 1; }\n  fi\n}\n")
	for _, o := range objs {
		fmt.Fprintf(&b, "del %s\n", o.kubectlArgs())
	}
	return b.String()
}

// addonHealthScript prints "ok I" or "fail I WHY" for every workload I,
// WHY being the last words of kubectl rollout status ("0 of 1 updated
// replicas are available…").
func addonHealthScript(kubectl string, workloads []addonObject, timeout time.Duration) string {
	var b strings.Builder
	b.WriteString("d=$(mktemp -d)\ntrap 'rm -rf \"$d\"' EXIT\n")
	b.WriteString("wait_for() {\n  i=$1; shift\n  if " + kubectl + " rollout status \"$@\" --timeout=" + timeout.String() + " >\"$d/out\" 2>&1; then\n" +
		"    echo \"ok $i\"\n  else\n    echo \"fail $i $(tail -n 2 \"$d/out\" | tr '\\n' ' ')\"\n  fi\n}\n")
	for i, o := range workloads {
		fmt.Fprintf(&b, "wait_for %d %s\n", i, o.kubectlArgs())
	}
	return b.String()
}

// indexedLines are the objects named by "WORD I" lines of a script's output.
func indexedLines(out, word string, objs []addonObject) []addonObject {
	var found []addonObject
	for _, line := range strings.Split(out, "\n") {
		rest, ok := strings.CutPrefix(strings.TrimSpace(line), word+" ")
		if !ok {
			continue
		}
		if i, err := strconv.Atoi(strings.TrimSpace(rest)); err == nil && i >= 0 && i < len(objs) {
			found = append(found, objs[i])
		}
	}
	return found
}

func objectNames(objs []addonObject) string {
	names := make([]string, len(objs))
	for i, o := range objs {
		names[i] = o.String()
	}
	return strings.Join(names, ", ")
}

func addonAttrsCopy(a resources.Attrs) resources.Attrs {
	out := make(resources.Attrs, len(a)+1)
	for k, v := range a {
		out[k] = v
	}
	return out
}
