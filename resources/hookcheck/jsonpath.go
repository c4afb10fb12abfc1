package hookcheck

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// jsonPath is the subset of Kubernetes JSONPath that check hooks use:
// {$.a.b}, {$.items[0].x}, {$.items[-1]}, {$.a["key.with.dots"]}. The braces
// and the leading $ are optional. Wildcards, filters and recursive descent
// are refused at plan time rather than half-supported.
type jsonPath struct {
	src   string
	steps []pathStep
}

// pathStep is an object key or, when isIndex, an array index.
type pathStep struct {
	key     string
	index   int
	isIndex bool
}

func parseJSONPath(src string) (*jsonPath, error) {
	p := strings.TrimSpace(src)
	if strings.HasPrefix(p, "{") && strings.HasSuffix(p, "}") {
		p = strings.TrimSpace(p[1 : len(p)-1])
	}
	p = strings.TrimPrefix(p, "$")
	jp := &jsonPath{src: src}
	for p != "" {
		switch {
		case strings.HasPrefix(p, ".."):
			return nil, fmt.Errorf("json_path %s: recursive descent (..) is not supported", src)
		case p[0] == '.':
			end := 1
			for end < len(p) && isKeyChar(p[end]) {
				end++
			}
			if end == 1 {
				return nil, fmt.Errorf("json_path %s: expected a key after '.' at %q", src, p)
			}
			jp.steps = append(jp.steps, pathStep{key: p[1:end]})
			p = p[end:]
		case p[0] == '[':
			end := strings.IndexByte(p, ']')
			if end < 0 {
				return nil, fmt.Errorf("json_path %s: missing ']'", src)
			}
			step, err := parseBracket(p[1:end])
			if err != nil {
				return nil, fmt.Errorf("json_path %s: %v", src, err)
			}
			jp.steps = append(jp.steps, step)
			p = p[end+1:]
		default:
			return nil, fmt.Errorf("json_path %s: unexpected %q (supported: $.key, [index], [\"key\"])", src, p)
		}
	}
	return jp, nil
}

func isKeyChar(c byte) bool {
	return c == '_' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func parseBracket(inner string) (pathStep, error) {
	inner = strings.TrimSpace(inner)
	if len(inner) >= 2 && (inner[0] == '"' || inner[0] == '\'') && inner[len(inner)-1] == inner[0] {
		return pathStep{key: inner[1 : len(inner)-1]}, nil
	}
	n, err := strconv.Atoi(inner)
	if err != nil {
		return pathStep{}, fmt.Errorf("[%s] is neither an index nor a quoted key (wildcards and filters are not supported)", inner)
	}
	return pathStep{index: n, isIndex: true}, nil
}

// extract selects the path in a JSON document and returns it as JSON.
func (jp *jsonPath) extract(doc []byte) ([]byte, error) {
	var node any
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	if err := dec.Decode(&node); err != nil {
		return nil, fmt.Errorf("json_path %s: the response is not JSON: %v", jp.src, err)
	}
	for i, step := range jp.steps {
		next, err := step.apply(node)
		if err != nil {
			return nil, fmt.Errorf("json_path %s: at %s: %v", jp.src, jp.prefix(i), err)
		}
		node = next
	}
	return compactJSON(node)
}

func (s pathStep) apply(node any) (any, error) {
	if !s.isIndex {
		obj, ok := node.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("key %q: not an object", s.key)
		}
		v, ok := obj[s.key]
		if !ok {
			return nil, fmt.Errorf("key %q not found", s.key)
		}
		return v, nil
	}
	list, ok := node.([]any)
	if !ok {
		return nil, fmt.Errorf("index %d: not an array", s.index)
	}
	i := s.index
	if i < 0 {
		i += len(list)
	}
	if i < 0 || i >= len(list) {
		return nil, fmt.Errorf("index %d out of range (length %d)", s.index, len(list))
	}
	return list[i], nil
}

// prefix renders the path up to step i, for messages.
func (jp *jsonPath) prefix(i int) string {
	var b strings.Builder
	b.WriteString("$")
	for _, s := range jp.steps[:i] {
		if s.isIndex {
			fmt.Fprintf(&b, "[%d]", s.index)
		} else {
			fmt.Fprintf(&b, "[%q]", s.key)
		}
	}
	return b.String()
}
