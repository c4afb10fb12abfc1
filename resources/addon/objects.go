package addon

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/eggo-project/eggo/providers/shell"
	"github.com/eggo-project/eggo/resources"
)

// addonObject is one Kubernetes object of an add-on, as its manifest names
// it. Namespace is "" when the manifest leaves it out: kubectl then uses the
// kubeconfig's namespace (default) for namespaced kinds, none for
// cluster-scoped ones, and so do eggo's later get and delete.
type addonObject struct {
	APIVersion string
	Kind       string
	Namespace  string
	Name       string
}

// String names the object for people: "Deployment kube-system/coredns".
func (o addonObject) String() string {
	if o.Namespace == "" {
		return o.Kind + " " + o.Name
	}
	return o.Kind + " " + o.Namespace + "/" + o.Name
}

// group is the API group of the object's apiVersion ("" for the core group).
func (o addonObject) group() string {
	g, _, ok := strings.Cut(o.APIVersion, "/")
	if !ok {
		return ""
	}
	return g
}

// same reports whether two entries are one object: the version is left
// out, so a manifest moving an object to a newer apiVersion does not
// prune it.
func (o addonObject) same(p addonObject) bool {
	return o.group() == p.group() && o.Kind == p.Kind && o.Namespace == p.Namespace && o.Name == p.Name
}

// kubectlArgs are the object's arguments to kubectl get and delete:
// Kind.version.group/name (kubectl resolves a kind there, so a CRD's kind
// works as well as a built-in one; the core group is the bare kind), and
// -n NAMESPACE when the manifest named one.
func (o addonObject) kubectlArgs() string {
	typ := o.Kind
	if g := o.group(); g != "" {
		_, version, _ := strings.Cut(o.APIVersion, "/")
		typ = o.Kind + "." + version + "." + g
	}
	args := shell.Quote(typ + "/" + o.Name)
	if o.Namespace != "" {
		args += " -n " + shell.Quote(o.Namespace)
	}
	return args
}

// workload reports whether the object rolls out pods whose availability
// is the add-on's health.
func (o addonObject) workload() bool {
	return o.group() == "apps" && (o.Kind == "Deployment" || o.Kind == "DaemonSet" || o.Kind == "StatefulSet")
}

func (o addonObject) attrs() map[string]any {
	return map[string]any{"api_version": o.APIVersion, "kind": o.Kind, "namespace": o.Namespace, "name": o.Name}
}

// objectsAttr is the objects attribute of a list.
func objectsAttr(objs []addonObject) []any {
	out := make([]any, len(objs))
	for i, o := range objs {
		out[i] = o.attrs()
	}
	return out
}

// objectsOf reads the objects attribute back from state.
func objectsOf(v any) []addonObject {
	list, _ := v.([]any)
	var out []addonObject
	for _, e := range list {
		m, _ := e.(map[string]any)
		o := addonObject{APIVersion: resources.AttrString(m["api_version"]), Kind: resources.AttrString(m["kind"]),
			Namespace: resources.AttrString(m["namespace"]), Name: resources.AttrString(m["name"])}
		if o.Kind != "" && o.Name != "" {
			out = append(out, o)
		}
	}
	return out
}

// parseObjects reads what `kubectl label --local -o json` prints for a
// manifest: a stream of JSON objects, or a List of them (kubectl prints
// either, depending on the number of objects and its version). Order is
// kept: it is the manifest's order, which deletion reverses.
func parseObjects(out string) ([]addonObject, error) {
	type meta struct {
		Name      string `json:"name"`
		Namespace string `json:"namespace"`
	}
	type item struct {
		APIVersion string            `json:"apiVersion"`
		Kind       string            `json:"kind"`
		Metadata   meta              `json:"metadata"`
		Items      []json.RawMessage `json:"items"`
	}
	var objs []addonObject
	var add func(raw json.RawMessage) error
	add = func(raw json.RawMessage) error {
		var it item
		if err := json.Unmarshal(raw, &it); err != nil {
			return err
		}
		if it.Kind == "List" || (strings.HasSuffix(it.Kind, "List") && it.Items != nil) {
			for _, r := range it.Items {
				if err := add(r); err != nil {
					return err
				}
			}
			return nil
		}
		if it.Kind == "" || it.Metadata.Name == "" {
			return fmt.Errorf("an object without kind or metadata.name (apiVersion %q, kind %q)", it.APIVersion, it.Kind)
		}
		objs = append(objs, addonObject{APIVersion: it.APIVersion, Kind: it.Kind, Namespace: it.Metadata.Namespace, Name: it.Metadata.Name})
		return nil
	}
	dec := json.NewDecoder(strings.NewReader(out))
	for {
		var raw json.RawMessage
		err := dec.Decode(&raw)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("reading kubectl's objects: %w", err)
		}
		if err := add(raw); err != nil {
			return nil, err
		}
	}
	for i, o := range objs {
		for _, p := range objs[:i] {
			if o.same(p) {
				return nil, fmt.Errorf("the manifest holds %s twice", o)
			}
		}
	}
	return objs, nil
}

// pruned are the objects of before that after no longer has, in reverse
// manifest order (dependents before what they depend on).
func pruned(before, after []addonObject) []addonObject {
	var out []addonObject
	for i := len(before) - 1; i >= 0; i-- {
		keep := false
		for _, a := range after {
			if a.same(before[i]) {
				keep = true
				break
			}
		}
		if !keep {
			out = append(out, before[i])
		}
	}
	return out
}

// union is after followed by the objects of before it lacks: what a
// checkpoint records before an apply, so a crash loses neither the new
// objects nor the ones the apply would prune.
func union(after, before []addonObject) []addonObject {
	out := append([]addonObject{}, after...)
	for _, b := range before {
		found := false
		for _, a := range after {
			if a.same(b) {
				found = true
				break
			}
		}
		if !found {
			out = append(out, b)
		}
	}
	return out
}

// missingNames lists the missing attribute, sorted.
func missingNames(v any) []string {
	names := resources.StringList(v)
	sort.Strings(names)
	return names
}
