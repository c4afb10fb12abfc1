package resources

import (
	"fmt"
	"math"
	"path"
	"strings"
	"time"
)

// RecordChecker is implemented by kinds whose records eggo acts on beyond
// comparing them: the paths a Delete removes or puts back, the host it
// connects to. The engine asks it of every record of the kind when it
// reads the state, before anything uses one; an error refuses the state,
// naming the record. A record is what the state file says, and whoever
// can write that file need not be anyone eggo would let choose what a
// destroy deletes.
type RecordChecker interface {
	CheckRecord(o Object) error
}

// CheckTargetAttrs checks the attributes TargetFromAttrs reads, when a
// record has them: "address" a string, "connection" an object whose
// fields have the types ConnectionAttrs writes. A missing field is left
// to TargetFromAttrs (older records lack some); one of another type
// (null included) is refused.
func CheckTargetAttrs(a Attrs) error {
	if v, ok := a[HostAttrAddress]; ok {
		if _, isString := v.(string); !isString {
			return fmt.Errorf("%s is %s, not a string", HostAttrAddress, typeName(v))
		}
	}
	v, ok := a[HostAttrConnection]
	if !ok {
		return nil
	}
	conn, isMap := v.(map[string]any)
	if !isMap {
		return fmt.Errorf("%s is %s, not an object", HostAttrConnection, typeName(v))
	}
	if err := checkFields(HostAttrConnection, conn, connectionFields); err != nil {
		return err
	}
	if _, err := time.ParseDuration(AttrOr(AttrString(conn["timeout"]), "0s")); err != nil {
		return fmt.Errorf("%s.timeout: %v", HostAttrConnection, err)
	}
	switch b := conn["bastion"].(type) {
	case nil:
	case map[string]any:
		return checkFields(HostAttrConnection+".bastion", b, bastionFields)
	default:
		return fmt.Errorf("%s.bastion is %s, not an object or null", HostAttrConnection, typeName(b))
	}
	return nil
}

// The types of a recorded connection's fields (ConnectionAttrs).
var (
	connectionFields = map[string]string{"type": "string", "user": "string", "port": "port", "private_key_file": "string",
		"password_env": "string", "agent": "bool", "known_hosts_file": "string", "host_key": "string", "sudo": "bool", "timeout": "string", "retries": "count"}
	bastionFields = map[string]string{"host": "string", "port": "port", "user": "string", "private_key_file": "string", "password_env": "string", "host_key": "string"}
)

// checkFields checks the fields of m that fields names, when present.
func checkFields(where string, m map[string]any, fields map[string]string) error {
	for name, want := range fields {
		v, ok := m[name]
		if !ok {
			continue
		}
		good := false
		switch want {
		case "string":
			_, good = v.(string)
		case "bool":
			_, good = v.(bool)
		case "port", "count":
			n, isNumber := v.(float64)
			limit := float64(math.MaxInt32)
			if want == "port" {
				limit = 65535
			}
			good = isNumber && n >= 0 && n <= limit && n == math.Trunc(n)
			want = "a whole number from 0 to " + fmt.Sprint(limit)
		}
		if !good {
			return fmt.Errorf("%s.%s is %s, not %s", where, name, typeName(v), want)
		}
	}
	return nil
}

// CheckPath refuses a recorded path that is not absolute and clean: no
// "..", no "." or empty part, no trailing slash, not "/" itself, no
// control character. Every path eggo records on a host is one.
func CheckPath(p string) error {
	switch {
	case !path.IsAbs(p) || path.Clean(p) != p || p == "/":
		return fmt.Errorf("%q is not an absolute, clean path", p)
	case strings.ContainsFunc(p, func(r rune) bool { return r < ' ' || r == 0x7f }):
		return fmt.Errorf("%q holds a control character", p)
	}
	return nil
}

// ObjectList reads the attribute name of a as a list of objects: nil when
// absent, an error when it is anything else (null included).
func ObjectList(a Attrs, name string) ([]map[string]any, error) {
	return listOf(a, name, func(i int, e any) (map[string]any, error) {
		m, isMap := e.(map[string]any)
		if !isMap {
			return nil, fmt.Errorf("%s[%d] is %s, not an object", name, i, typeName(e))
		}
		return m, nil
	})
}

// PathList reads the attribute name of a as a list of paths, each checked
// by CheckPath: nil when absent, an error when anything else.
func PathList(a Attrs, name string) ([]string, error) {
	return listOf(a, name, func(i int, e any) (string, error) {
		p, isString := e.(string)
		if !isString {
			return "", fmt.Errorf("%s[%d] is %s, not a path", name, i, typeName(e))
		}
		if err := CheckPath(p); err != nil {
			return "", fmt.Errorf("%s[%d]: %w", name, i, err)
		}
		return p, nil
	})
}

// listOf reads the attribute name of a as a list, each element through
// elem: nil when absent, an error when it is not a list (null included)
// or an element is refused.
func listOf[T any](a Attrs, name string, elem func(i int, e any) (T, error)) ([]T, error) {
	v, ok := a[name]
	if !ok {
		return nil, nil
	}
	list, isList := v.([]any)
	if !isList {
		return nil, fmt.Errorf("%s is %s, not a list", name, typeName(v))
	}
	out := make([]T, len(list))
	for i, e := range list {
		x, err := elem(i, e)
		if err != nil {
			return nil, err
		}
		out[i] = x
	}
	return out, nil
}

// PathField is the path m holds under key, checked by CheckPath.
func PathField(where string, m map[string]any, key string) (string, error) {
	p, ok := m[key].(string)
	if !ok {
		return "", fmt.Errorf("%s.%s is %s, not a path", where, key, typeName(m[key]))
	}
	if err := CheckPath(p); err != nil {
		return "", fmt.Errorf("%s.%s: %w", where, key, err)
	}
	return p, nil
}

// typeName names a JSON value's type for messages, never the value (a
// record may hold a secret).
func typeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case float64:
		return "a number"
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("a %T", v)
}
