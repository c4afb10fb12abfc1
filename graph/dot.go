package graph

import (
	"cmp"
	"maps"
	"slices"
	"strings"
)

// DOT renders the graph in Graphviz syntax. Vertices appear in insertion
// order, edges sorted by name, attributes sorted by key, so the output is
// byte-for-byte stable. Edges run from a dependency to its dependent, the
// direction work flows. attrs may be nil or return nil for a vertex.
func (g *Graph) DOT(attrs func(name string) map[string]string) string {
	var b strings.Builder
	b.WriteString("digraph eggo {\n")
	for _, name := range g.names {
		b.WriteString("  " + dotQuote(name))
		if attrs != nil {
			writeAttrs(&b, attrs(name))
		}
		b.WriteString(";\n")
	}

	type edge struct{ from, to string }
	var edges []edge
	g.edges(func(dependency, dependent int64) {
		edges = append(edges, edge{g.names[dependency], g.names[dependent]})
	})
	slices.SortFunc(edges, func(a, b edge) int {
		return cmp.Or(strings.Compare(a.from, b.from), strings.Compare(a.to, b.to))
	})
	for _, e := range edges {
		b.WriteString("  " + dotQuote(e.from) + " -> " + dotQuote(e.to) + ";\n")
	}
	b.WriteString("}\n")
	return b.String()
}

func writeAttrs(b *strings.Builder, attrs map[string]string) {
	if len(attrs) == 0 {
		return
	}
	b.WriteString(" [")
	for i, k := range slices.Sorted(maps.Keys(attrs)) {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(dotID(k) + "=" + dotQuote(attrs[k]))
	}
	b.WriteString("]")
}

// dotQuote makes a DOT double-quoted string. Only the quote, the backslash
// and line breaks need escaping there; \n is DOT's own newline escape.
func dotQuote(s string) string {
	return `"` + dotEscaper.Replace(s) + `"`
}

var dotEscaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\r\n", `\n`, "\n", `\n`, "\r", `\n`)

// dotID leaves a plain identifier bare and quotes anything else.
func dotID(s string) string {
	for i, r := range s {
		letter := r == '_' || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z')
		if !letter && (i == 0 || r < '0' || r > '9') {
			return dotQuote(s)
		}
	}
	if s == "" {
		return `""`
	}
	return s
}
