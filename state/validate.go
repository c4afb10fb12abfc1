package state

import (
	"fmt"
	"strings"
)

// validate returns what makes s an invalid state, or "". The reader refuses
// such a file and the writer refuses to produce one, so eggo never writes a
// file it would not read back. It is one pass over the resources that
// allocates nothing for a valid state: it runs on every write.
func validate(s *State) string {
	if s.FormatVersion != FormatVersion {
		return fmt.Sprintf("format_version is %d, expected %d", s.FormatVersion, FormatVersion)
	}
	if s.Lineage == "" {
		return "lineage is missing"
	}
	if s.DataKey != "" && len(s.Recipients) == 0 {
		return "data_key is set but recipients are not (the key is sealed to them)"
	}
	seen := make(map[string]struct{}, len(s.Resources))
	for i, r := range s.Resources {
		switch {
		case r.Address == "":
			return fmt.Sprintf("resource #%d (kind %q) has no address", i+1, r.Kind)
		case r.Kind == "":
			return fmt.Sprintf("resource %s has no kind", r.Address)
		case r.Status != "" && r.Status != StatusPending:
			return fmt.Sprintf("resource %s has unknown status %q", r.Address, r.Status)
		}
		if problem := addressProblem(r.Address, r.Kind); problem != "" {
			return fmt.Sprintf("resource #%d: %s", i+1, problem)
		}
		if _, dup := seen[r.Address]; dup {
			return fmt.Sprintf("resource address %s appears more than once", r.Address)
		}
		seen[r.Address] = struct{}{}
	}
	return ""
}

// addressProblem says what is wrong with addr as the address of a resource
// of kind, or "". An address is KIND.NAME or KIND.NAME["KEY"]
// (resources/names.go: host.w0, cert.admin, service.kubelet["w0"]), and
// the kind it begins with is the record's: eggo finds a resource's kind
// by its address as often as by its record.
func addressProblem(addr, kind string) string {
	typ, rest, _ := strings.Cut(addr, ".")
	name, key, keyed := strings.Cut(rest, "[")
	switch {
	case !isIdent(typ) || !isName(name):
		return fmt.Sprintf("the address %q is not KIND.NAME or KIND.NAME[\"KEY\"]", addr)
	case keyed && !isKey(key):
		return fmt.Sprintf("the address %q has a malformed key (KIND.NAME[\"KEY\"], KEY letters, digits, '-', '_' or '.')", addr)
	case typ != kind:
		return fmt.Sprintf("%s is recorded as kind %q, but its address is of kind %q", addr, kind, typ)
	}
	return ""
}

// isIdent: a kind's name, lowercase letters, digits and '_' (k8s_node).
func isIdent(s string) bool {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	for i := range len(s) {
		if c := s[i]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// isName: a resource's name, a node's or a component's (kube-apiserver,
// cluster_ca, master-0).
func isName(s string) bool { return nameChars(s, false) }

// isKey: what follows "[" in an address, `"KEY"]`, KEY a node's name.
func isKey(s string) bool {
	inner, ok := strings.CutPrefix(s, `"`)
	if !ok {
		return false
	}
	inner, ok = strings.CutSuffix(inner, `"]`)
	return ok && nameChars(inner, true)
}

// nameChars: s is letters, digits, '-' and '_' (and '.' when dot), and
// not empty.
func nameChars(s string, dot bool) bool {
	if s == "" {
		return false
	}
	for i := range len(s) {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || dot && c == '.') {
			return false
		}
	}
	return true
}
