// Long file: the reader of the state format is one piece — the tokenizer,
// the value decoder and the typed decoding of each part of the format share
// one cursor and one error type, and reading them top to bottom is how the
// format is checked against website/state.md. Splitting it would scatter
// one grammar over several files.

package state

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// jsonReader parses the current format in one pass. encoding/json read a
// 30,000-resource file at about 35 MB/s, scanning every byte twice and
// decoding through reflection; this reads it several times faster and
// reports each problem at its byte offset. It is stricter than
// encoding/json where strictness protects the file: field names match
// exactly and a field may not appear twice. Values decode as encoding/json
// decodes them into an any (float64 numbers, []any, map[string]any), which
// the tests and the fuzzer check.
type jsonReader struct {
	data  []byte
	pos   int
	depth int
	// strs interns short strings: a state's field names, paths, node
	// names and addresses repeat thousands of times, and every resource
	// stays in memory for the whole run.
	strs map[string]string
	// kvs and items are the members and elements of the objects and
	// arrays being read, innermost last (see object).
	kvs   []keyValue
	items []any
	// shared is the file's shared table once read; resources read after
	// it are resolved as they are read (resolvedAll says all were).
	shared      map[string]any
	resolvedAll bool
	// current: the file is of the current format, which writes every
	// resource's attributes as an object (older ones could say null).
	current bool
}

// Strings of up to internMax bytes are interned, up to internCount of
// them: longer ones (digests, certificates, file contents) rarely repeat.
const (
	internMax   = 48
	internCount = 1 << 16
)

// text is d as a string, interned when short.
func (p *jsonReader) text(d []byte) string {
	if len(d) > internMax {
		return string(d)
	}
	if s, ok := p.strs[string(d)]; ok {
		return s
	}
	s := string(d)
	if p.strs == nil {
		p.strs = make(map[string]string, 1024)
	}
	if len(p.strs) < internCount {
		p.strs[s] = s
	}
	return s
}

// maxDepth bounds nesting, as encoding/json does, so hostile input cannot
// exhaust the stack.
const maxDepth = 10000

// syntaxError is a problem at an offset of the input.
type syntaxError struct {
	offset int
	msg    string
}

func (e *syntaxError) Error() string { return e.msg }

func (p *jsonReader) fail(format string, args ...any) error {
	return &syntaxError{offset: p.pos, msg: fmt.Sprintf(format, args...)}
}

func (p *jsonReader) skipSpace() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

// peek returns the next non-space byte, 0 at the end.
func (p *jsonReader) peek() byte {
	p.skipSpace()
	if p.pos >= len(p.data) {
		return 0
	}
	return p.data[p.pos]
}

func (p *jsonReader) expect(c byte) error {
	switch p.peek() {
	case c:
		p.pos++
		return nil
	case 0:
		return p.fail("the file ends too early (truncated?)")
	}
	return p.fail("expected %q, found %q", c, p.data[p.pos])
}

// want checks that c comes next, without consuming it; what describes the
// expected thing for the error.
func (p *jsonReader) want(c byte, what string) error {
	switch p.peek() {
	case c:
		return nil
	case 0:
		return p.fail("the file ends too early (truncated?)")
	}
	return p.fail("%s, found %q", what, p.data[p.pos])
}

// null consumes null when it comes next.
func (p *jsonReader) null() bool {
	if p.peek() == 'n' && len(p.data)-p.pos >= 4 && string(p.data[p.pos:p.pos+4]) == "null" {
		p.pos += 4
		return true
	}
	return false
}

// members calls member for each key of an object, after checking the key is
// not repeated when unique is set.
func (p *jsonReader) members(unique bool, member func(key string, keyAt int) error) error {
	if err := p.expect('{'); err != nil {
		return err
	}
	if p.depth++; p.depth > maxDepth {
		return p.fail("nested too deeply")
	}
	defer func() { p.depth-- }()
	// The objects with unique fields have few of them: a short list beats
	// allocating a map for each of 30,000 resources.
	var seenBuf [8]string
	seen := seenBuf[:0]
	if p.peek() == '}' {
		p.pos++
		return nil
	}
	for {
		p.skipSpace()
		keyAt := p.pos
		if err := p.want('"', "expected a field name"); err != nil {
			return err
		}
		key, err := p.string()
		if err != nil {
			return err
		}
		if unique {
			if slices.Contains(seen, key) {
				p.pos = keyAt
				return p.fail("field %q appears twice", key)
			}
			seen = append(seen, key)
		}
		if err := p.expect(':'); err != nil {
			return err
		}
		if err := member(key, keyAt); err != nil {
			return err
		}
		switch p.peek() {
		case ',':
			p.pos++
		case '}':
			p.pos++
			return nil
		case 0:
			return p.fail("the file ends too early (truncated?)")
		default:
			return p.fail("expected ',' or '}' after field %q", key)
		}
	}
}

// elements calls element for each item of an array.
func (p *jsonReader) elements(element func() error) error {
	if err := p.expect('['); err != nil {
		return err
	}
	if p.depth++; p.depth > maxDepth {
		return p.fail("nested too deeply")
	}
	defer func() { p.depth-- }()
	if p.peek() == ']' {
		p.pos++
		return nil
	}
	for {
		if err := element(); err != nil {
			return err
		}
		switch p.peek() {
		case ',':
			p.pos++
		case ']':
			p.pos++
			return nil
		case 0:
			return p.fail("the file ends too early (truncated?)")
		default:
			return p.fail("expected ',' or ']' in a list")
		}
	}
}

func (p *jsonReader) state() (*State, error) {
	s := &State{}
	err := p.members(true, func(key string, keyAt int) error {
		var err error
		switch key {
		case "format_version":
			var n int64
			n, err = p.integer("format_version", strconv.IntSize)
			s.FormatVersion = int(n)
		case "serial":
			s.Serial, err = p.unsigned("serial")
		case "lineage":
			s.Lineage, err = p.stringField("lineage")
		case "eggo_version":
			s.EggoVersion, err = p.stringField("eggo_version")
		case "recipients":
			s.Recipients, err = p.stringList(key)
		case "data_key":
			s.DataKey, err = p.stringField(key)
		case "host_keys":
			s.HostKeys, err = p.stringMap(key)
		case "shared":
			s.Shared, err = p.object()
			p.shared = s.Shared
		case "sensitive_outputs":
			s.SensitiveOutputs, err = p.stringList(key)
		case "sealed_outputs":
			s.SealedOutputs, err = p.stringMap(key)
		case "resources":
			if p.null() {
				return nil
			}
			s.Resources, err = p.resources()
			p.resolvedAll = p.shared != nil
		case "outputs":
			s.Outputs, err = p.object()
		case "deploy_pending":
			var v any
			if v, err = p.value(); err == nil {
				b, ok := v.(bool)
				if !ok {
					return p.fail("deploy_pending: want true or false, got %v", v)
				}
				s.DeployPending = b
			}
		case "hook_runs":
			var v any
			if v, err = p.value(); err == nil {
				s.HookRuns, err = decodeHookRuns(v)
			}
		default:
			p.pos = keyAt
			return p.fail("unknown field %q", key)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if p.peek() != 0 {
		return nil, p.fail("unexpected data after the state")
	}
	return s, nil
}

func (p *jsonReader) resource() (Resource, error) {
	var r Resource
	if err := p.want('{', "expected a resource (an object)"); err != nil {
		return r, err
	}
	err := p.members(true, func(key string, keyAt int) error {
		var err error
		switch key {
		case "address":
			r.Address, err = p.stringField(key)
		case "kind":
			r.Kind, err = p.stringField(key)
		case "node":
			r.Node, err = p.stringField(key)
		case "status":
			r.Status, err = p.stringField(key)
		case "attributes":
			if p.current && p.null() {
				p.pos -= len("null")
				return p.fail("resource %s: attributes is null (eggo writes an object, {} when empty)", r.Address)
			}
			r.Attributes, err = p.object()
		case "sensitive":
			r.Sensitive, err = p.stringList(key)
		case "sealed":
			r.Sealed, err = p.stringMap(key)
		case "dependencies":
			r.Dependencies, err = p.stringList(key)
		default:
			p.pos = keyAt
			return p.fail("unknown field %q in a resource", key)
		}
		return err
	})
	if err == nil && p.shared != nil {
		if err := resolveRefs(r.Address, r.Attributes, p.shared); err != nil {
			return r, p.fail("%s", err)
		}
	}
	return r, err
}

// stringField reads a string (null reads as "", as in encoding/json).
func (p *jsonReader) stringField(name string) (string, error) {
	if p.null() {
		return "", nil
	}
	if err := p.want('"', name+" must be a string"); err != nil {
		return "", err
	}
	return p.string()
}

func (p *jsonReader) stringList(name string) ([]string, error) {
	if p.null() {
		return nil, nil
	}
	if err := p.want('[', name+" must be a list of strings"); err != nil {
		return nil, err
	}
	list := []string{}
	err := p.elements(func() error {
		if err := p.want('"', name+" must be a list of strings"); err != nil {
			return err
		}
		s, err := p.string()
		list = append(list, s)
		return err
	})
	return list, err
}

// stringMap reads an object whose values are strings (null reads as nil).
func (p *jsonReader) stringMap(name string) (map[string]string, error) {
	if p.null() {
		return nil, nil
	}
	if err := p.want('{', name+" must be an object of strings"); err != nil {
		return nil, err
	}
	m := map[string]string{}
	err := p.members(true, func(key string, _ int) error {
		if err := p.want('"', name+"."+key+" must be a string"); err != nil {
			return err
		}
		v, err := p.string()
		m[key] = v
		return err
	})
	return m, err
}

// object reads a JSON object of values (null reads as nil).
func (p *jsonReader) object() (map[string]any, error) {
	if p.null() {
		return nil, nil
	}
	if err := p.want('{', "expected an object"); err != nil {
		return nil, err
	}
	// The members gather on a stack shared by every object being read,
	// then go into a map of their number: no growing, no spare room.
	start := len(p.kvs)
	err := p.members(false, func(key string, _ int) error {
		v, err := p.value()
		p.kvs = append(p.kvs, keyValue{key, v})
		return err
	})
	m := make(map[string]any, len(p.kvs)-start)
	for _, kv := range p.kvs[start:] {
		m[kv.key] = kv.value // a repeated key: the last wins, as in encoding/json
	}
	clear(p.kvs[start:])
	p.kvs = p.kvs[:start]
	return m, err
}

// keyValue is one member of an object being read.
type keyValue struct {
	key   string
	value any
}

func (p *jsonReader) value() (any, error) {
	switch c := p.peek(); {
	case c == '{':
		return p.object()
	case c == '[':
		start := len(p.items) // as for an object's members
		err := p.elements(func() error {
			v, err := p.value()
			p.items = append(p.items, v)
			return err
		})
		list := slices.Clone(p.items[start:])
		if list == nil {
			list = []any{}
		}
		clear(p.items[start:])
		p.items = p.items[:start]
		return list, err
	case c == '"':
		return p.string()
	case c == '-' || c >= '0' && c <= '9':
		lit, at, err := p.number("a number")
		if err != nil {
			return nil, err
		}
		f, err := strconv.ParseFloat(lit, 64)
		if err != nil {
			p.pos = at
			return nil, p.fail("number %s is out of range", lit)
		}
		return f, nil
	case c == 0:
		return nil, p.fail("the file ends too early (truncated?)")
	}
	for _, word := range [...]string{"null", "true", "false"} {
		if len(p.data)-p.pos >= len(word) && string(p.data[p.pos:p.pos+len(word)]) == word {
			p.pos += len(word)
			switch word {
			case "true":
				return true, nil
			case "false":
				return false, nil
			}
			return nil, nil
		}
	}
	return nil, p.fail("invalid character %q looking for a value", p.data[p.pos])
}

func (p *jsonReader) integer(name string, bits int) (int64, error) {
	if p.null() {
		return 0, nil
	}
	lit, at, err := p.number(name + " must be a whole number")
	if err != nil {
		return 0, err
	}
	n, err := strconv.ParseInt(lit, 10, bits)
	if err != nil {
		p.pos = at
		return 0, p.fail("%s must be a whole number, not %s", name, lit)
	}
	return n, nil
}

func (p *jsonReader) unsigned(name string) (uint64, error) {
	if p.null() {
		return 0, nil
	}
	lit, at, err := p.number(name + " must be a whole number from 0 up")
	if err != nil {
		return 0, err
	}
	n, err := strconv.ParseUint(lit, 10, 64)
	if err != nil {
		p.pos = at
		return 0, p.fail("%s must be a whole number from 0 up, not %s", name, lit)
	}
	return n, nil
}

// number reads a number literal as JSON defines it:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
// what describes the expected number for the error.
func (p *jsonReader) number(what string) (lit string, at int, err error) {
	p.skipSpace()
	at = p.pos
	d := p.data
	i := p.pos
	digits := func() bool {
		start := i
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
		return i > start
	}
	if i < len(d) && d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case !digits():
		p.pos = i
		if i >= len(d) {
			return "", at, p.fail("the file ends too early (truncated?)")
		}
		return "", at, p.fail("%s, found %q", what, d[i])
	}
	if i < len(d) && d[i] == '.' {
		i++
		if !digits() {
			p.pos = i
			return "", at, p.fail("%s: expected a digit after the decimal point", what)
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if !digits() {
			p.pos = i
			return "", at, p.fail("%s: expected a digit in the exponent", what)
		}
	}
	p.pos = i
	return string(d[at:i]), at, nil
}

// string reads a string literal, decoding it as encoding/json does:
// invalid UTF-8 and lone surrogates become U+FFFD.
func (p *jsonReader) string() (string, error) {
	p.pos++ // the opening quote
	start := p.pos
	d := p.data
	// Fast path: no escapes and plain ASCII or valid UTF-8.
	ascii := true
	for i := start; i < len(d); i++ {
		c := d[i]
		switch {
		case c == '"':
			if !ascii && !utf8.Valid(d[start:i]) {
				return p.slowString(start)
			}
			p.pos = i + 1
			return p.text(d[start:i]), nil
		case c == '\\':
			return p.slowString(start)
		case c < 0x20:
			p.pos = i
			return "", p.fail("control character %#x in a string (must be escaped)", c)
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	p.pos = len(d)
	return "", p.fail("the file ends too early (truncated?)")
}

func (p *jsonReader) slowString(start int) (string, error) {
	d := p.data
	var out strings.Builder
	out.Grow(literalLen(d, start)) // the decoded text is rarely longer
	i := start
	for i < len(d) {
		c := d[i]
		switch {
		case c == '"':
			p.pos = i + 1
			return out.String(), nil
		case c < 0x20:
			p.pos = i
			return "", p.fail("control character %#x in a string (must be escaped)", c)
		case c == '\\':
			if i+1 >= len(d) {
				i = len(d)
				continue
			}
			i++
			switch e := d[i]; e {
			case '"', '\\', '/':
				out.WriteByte(e)
			case 'b':
				out.WriteByte('\b')
			case 'f':
				out.WriteByte('\f')
			case 'n':
				out.WriteByte('\n')
			case 'r':
				out.WriteByte('\r')
			case 't':
				out.WriteByte('\t')
			case 'u':
				r, ok := hex4(d[i+1:])
				if !ok {
					p.pos = i
					return "", p.fail("invalid \\u escape in a string")
				}
				i += 4
				if utf16.IsSurrogate(r) {
					// A pair takes the next escape too; a lone half is
					// replaced, as encoding/json does.
					if len(d) > i+2 && d[i+1] == '\\' && d[i+2] == 'u' {
						if r2, ok := hex4(d[i+3:]); ok {
							if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
								r = dec
								i += 6
								out.WriteRune(r)
								break
							}
						}
					}
					r = utf8.RuneError
				}
				out.WriteRune(r)
			default:
				p.pos = i
				return "", p.fail("invalid escape \\%c in a string", e)
			}
			i++
		case c < utf8.RuneSelf:
			j := plainRun(d, i)
			out.Write(d[i:j])
			i = j
		default:
			r, size := utf8.DecodeRune(d[i:])
			if r == utf8.RuneError && size == 1 {
				out.WriteRune(utf8.RuneError)
			} else {
				out.Write(d[i : i+size])
			}
			i += size
		}
	}
	p.pos = len(d)
	return "", p.fail("the file ends too early (truncated?)")
}

// plainRun is the end of the run of plain ASCII from i: up to a quote, a
// backslash, a control character or a non-ASCII byte. slowString copies
// each run whole.
func plainRun(d []byte, i int) int {
	for i < len(d) {
		if c := d[i]; c == '"' || c == '\\' || c < 0x20 || c >= utf8.RuneSelf {
			return i
		}
		i++
	}
	return i
}

// literalLen is the length of the string literal starting at start,
// escapes included, up to its closing quote (or the end of d).
func literalLen(d []byte, start int) int {
	end := start
	for end < len(d) && d[end] != '"' {
		if d[end] == '\\' {
			end++
		}
		end++
	}
	return min(end, len(d)) - start
}

// hex4 decodes four hex digits.
func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}
