package hookcheck

import (
	"fmt"
	"maps"
	"regexp"
	"sort"
)

// argRef matches `{{ args.NAME }}` as bcs and Argo write it.
var argRef = regexp.MustCompile(`\{\{\s*args\.([A-Za-z0-9_-]+)\s*\}\}`)

// anyTemplate finds what looks like a template at all, to refuse the ones
// eggo does not understand instead of sending them verbatim.
var anyTemplate = regexp.MustCompile(`\{\{[^}]*\}\}`)

// templated is one field that may hold templates; secret fields (header
// values) are named but their contents never quoted.
type templated struct {
	name string
	ptr  *string
}

// clone gives s its own provider structs and maps, so rendering never
// writes into the caller's Spec.
func (s Spec) clone() Spec {
	s.Args = maps.Clone(s.Args)
	if s.Web != nil {
		w := *s.Web
		w.Headers = maps.Clone(w.Headers)
		s.Web = &w
	}
	if s.Prometheus != nil {
		p := *s.Prometheus
		s.Prometheus = &p
	}
	return s
}

// Render returns s with every `{{ args.NAME }}` replaced. A value in args
// wins over the default in s.Args; an argument with neither (or with an empty
// default) is an error naming the argument, the field and the hook.
func Render(s Spec, args map[string]string) (Spec, error) {
	out := s.clone()
	err := eachTemplated(&out, func(field, text string) (string, error) {
		return expand(out, field, text, func(name string) (string, bool) {
			if v, ok := args[name]; ok {
				return v, true
			}
			v := out.Args[name]
			return v, v != ""
		})
	})
	return out, err
}

// eachTemplated rewrites every templated field of s (which it owns) with f.
func eachTemplated(s *Spec, f func(field, text string) (string, error)) error {
	if w := s.Web; w != nil {
		for _, fld := range []templated{{"web.url", &w.URL}, {"web.body", &w.Body}, {"web.json_path", &w.JSONPath}} {
			if err := rewrite(fld, f); err != nil {
				return err
			}
		}
		keys := make([]string, 0, len(w.Headers))
		for k := range w.Headers {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			v := w.Headers[k]
			if err := rewrite(templated{fmt.Sprintf("web.headers[%q]", k), &v}, f); err != nil {
				return err
			}
			w.Headers[k] = v
		}
	}
	if p := s.Prometheus; p != nil {
		for _, fld := range []templated{{"prometheus.address", &p.Address}, {"prometheus.query", &p.Query}} {
			if err := rewrite(fld, f); err != nil {
				return err
			}
		}
	}
	return nil
}

func rewrite(fld templated, f func(field, text string) (string, error)) error {
	v, err := f(fld.name, *fld.ptr)
	if err != nil {
		return err
	}
	*fld.ptr = v
	return nil
}

// expand replaces the argument references in text using lookup.
func expand(s Spec, field, text string, lookup func(string) (string, bool)) (string, error) {
	for _, m := range anyTemplate.FindAllString(text, -1) {
		if !argRef.MatchString(m) {
			return "", fmt.Errorf("hook %q: %s: unsupported template %s: only {{ args.NAME }} is understood", s.Name, field, m)
		}
	}
	var missing string
	out := argRef.ReplaceAllStringFunc(text, func(m string) string {
		name := argRef.FindStringSubmatch(m)[1]
		v, ok := lookup(name)
		if !ok && missing == "" {
			missing = name
		}
		return v
	})
	if missing != "" {
		return "", fmt.Errorf("hook %q: %s: argument %q has no value (give it in args)", s.Name, field, missing)
	}
	return out, nil
}
