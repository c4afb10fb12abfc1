package command

import (
	"fmt"
	"io"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/eggo-project/eggo/engine"
	"github.com/eggo-project/eggo/internal/text"
	"github.com/eggo-project/eggo/resources"
	"github.com/eggo-project/eggo/resources/hook"
)

var reasonWords = map[string]string{
	resources.ReasonNew:              "new",
	resources.ReasonConfig:           "changed in config",
	resources.ReasonDrift:            "changed outside eggo",
	resources.ReasonReplaceRequested: "replacement requested",
	resources.ReasonRemoved:          "removed from the configuration",
	resources.ReasonDestroy:          "eggo destroy",
	resources.ReasonPending:          "a previous apply stopped while changing it",
	resources.ReasonGone:             "gone from the host",
}

// reasonText says why a step is planned; a detail may quote what a host
// reported, so it is made safe.
func reasonText(r resources.Reason) string {
	w := reasonWords[r.Code]
	if w == "" {
		w = r.Code
	}
	if r.Detail != "" {
		w += ": " + r.Detail
	}
	return text.SafeLine(w)
}

var actionWords = map[resources.Action]string{
	resources.Create:  "will be created",
	resources.Update:  "will be updated in-place",
	resources.Replace: "must be replaced",
	resources.Delete:  "will be destroyed",
}

var actionSymbols = map[resources.Action]string{
	resources.Create:  "+",
	resources.Update:  "~",
	resources.Replace: "-/+",
	resources.Delete:  "-",
}

// planWriter is where a plan is rendered: a bufio.Writer on the way to
// the terminal (the text is streamed, never held whole), or a
// strings.Builder in tests.
type planWriter interface {
	io.Writer
	io.StringWriter
	io.ByteWriter
}

// renderPlan writes a plan the way Terraform users read one.
func renderPlan(b planWriter, p *engine.Plan, col colorizer) {
	for _, w := range p.Warnings {
		fmt.Fprintf(b, "%s\n\n", warning(col, w))
	}
	renderUnreadable(b, p, col)
	if !p.HasChanges() {
		b.WriteString(col.c(green, "No changes.") + " The cluster matches the configuration.\n")
		return
	}
	c := p.Counts()
	if c != (engine.Counts{}) {
		b.WriteString("eggo will perform the following actions:\n")
	}
	var buf []byte // one step's text, reused
	for _, s := range p.Steps {
		if s.Action == resources.NoOp || s.Hook != nil {
			continue
		}
		buf = appendStep(buf[:0], s, col)
		b.Write(buf)
	}
	renderHooks(b, p, col)
	renderStateChanges(b, p, col)
	if p.OutputsChanged {
		b.WriteString("\nChanges to Outputs:\n")
		for _, o := range p.Outputs {
			v := renderValue(o.Value, "    ")
			if o.Sensitive {
				v = sensitiveText
			}
			fmt.Fprintf(b, "  %s %s = %s\n", col.c(yellow, "~"), text.SafeLine(o.Name), v)
		}
	}
	fmt.Fprintf(b, "\n%s %d to add, %d to change, %d to destroy.%s\n", col.c(bold, "Plan:"), c.Add, c.Change, c.Destroy, stateChangesSummary(p))
}

func symbolColor(a resources.Action) string {
	switch a {
	case resources.Create:
		return green
	case resources.Update:
		return yellow
	}
	return red
}

// appendStep appends one step's block: its address, action and reasons,
// then its attributes, all of them for a create or a delete, those that
// change otherwise.
func appendStep(dst []byte, s *engine.Step, col colorizer) []byte {
	addr := safeAddr(s.Addr) // a destroyed resource's is the state's
	dst = append(append(dst, "\n  "...), col.c(bold, "# "+addr)...)
	dst = append(append(append(dst, ' '), actionWords[s.Action]...), '\n')
	if len(s.Reasons) > 0 {
		dst = append(dst, "  # ("...)
		for i, r := range s.Reasons {
			if i > 0 {
				dst = append(dst, "; "...)
			}
			dst = append(dst, reasonText(r)...)
		}
		dst = append(dst, ")\n"...)
	}
	// The block header is the address itself: an instance key such as
	// cert.apiserver["m0"] reads as written, where a quoted name would
	// escape its quotes.
	sym := col.c(symbolColor(s.Action), actionSymbols[s.Action])
	dst = append(append(append(append(append(dst, "  "...), sym...), ' '), addr...), " {\n"...)
	switch s.Action {
	case resources.Create:
		dst = appendAll(dst, "+", s.After, s.Sensitive, col)
	case resources.Delete:
		dst = appendAll(dst, "-", s.Before, s.Sensitive, col)
	default:
		sensitive := map[string]bool{}
		for _, n := range s.Sensitive {
			sensitive[n] = true
		}
		var b strings.Builder
		renderDiff(&b, s, sensitive, col)
		dst = append(dst, b.String()...)
	}
	return append(dst, "    }\n"...)
}

func shown(v any, name string, sensitive map[string]bool) string {
	if sensitive[name] {
		return sensitiveText
	}
	return renderValue(v, "      ")
}

// appendAll appends every attribute, a sensitive one (named in sensitive)
// as (sensitive value).
func appendAll(dst []byte, sym string, attrs resources.Attrs, sensitive []string, col colorizer) []byte {
	var small [32]string
	keys := appendSortedKeys(small[:0], attrs)
	w := maxLen(keys)
	mark := col.c(symbolColorFor(sym), sym)
	for _, k := range keys {
		dst = append(append(append(dst, "      "...), mark...), ' ')
		dst = append(appendPadded(dst, k, w), " = "...)
		if slices.Contains(sensitive, k) {
			dst = append(dst, sensitiveText...)
		} else {
			dst = appendValue(dst, attrs[k], "      ")
		}
		dst = append(dst, '\n')
	}
	return dst
}

func symbolColorFor(sym string) string {
	switch sym {
	case "+":
		return green
	case "~":
		return yellow
	}
	return red
}

// renderDiff shows the attributes that change, before → after.
func renderDiff(b *strings.Builder, s *engine.Step, sensitive map[string]bool, col colorizer) {
	keys := map[string]bool{}
	for k := range s.Before {
		keys[k] = true
	}
	for k := range s.After {
		keys[k] = true
	}
	names := slices.Sorted(maps.Keys(keys))
	var changed []string
	for _, k := range names {
		if !reflect.DeepEqual(s.Before[k], s.After[k]) {
			changed = append(changed, k)
		}
	}
	w := maxLen(changed)
	for _, k := range changed {
		before, hasBefore := s.Before[k]
		after, hasAfter := s.After[k]
		name := text.SafeLine(k) // the state's keys are anyone's
		switch {
		case !hasBefore:
			fmt.Fprintf(b, "      %s %-*s = %s\n", col.c(green, "+"), w, name, shown(after, k, sensitive))
		case !hasAfter:
			fmt.Fprintf(b, "      %s %-*s = %s\n", col.c(red, "-"), w, name, shown(before, k, sensitive))
		case sensitive[k]:
			fmt.Fprintf(b, "      %s %-*s = %s\n", col.c(yellow, "~"), w, name, sensitiveText)
		default:
			renderChangedValue(b, k, w, before, after, col)
		}
	}
	if hidden := len(names) - len(changed); hidden > 0 {
		fmt.Fprintf(b, "        # (%s unchanged)\n", text.Plural(hidden, "attribute"))
	}
}

func renderChangedValue(b *strings.Builder, k string, w int, before, after any, col colorizer) {
	k = text.SafeLine(k)
	bl, border, okb := keyedList(before)
	al, aorder, oka := keyedList(after)
	if okb && oka {
		fmt.Fprintf(b, "      %s %-*s = [\n", col.c(yellow, "~"), w, k)
		for _, key := range border {
			if _, ok := al[key]; !ok {
				fmt.Fprintf(b, "          %s %s,\n", col.c(red, "-"), renderInline(bl[key]))
			} else if !reflect.DeepEqual(bl[key], al[key]) {
				fmt.Fprintf(b, "          %s %s,\n", col.c(yellow, "~"), elementDiff(bl[key], al[key]))
			}
		}
		for _, key := range aorder {
			if _, ok := bl[key]; !ok {
				fmt.Fprintf(b, "          %s %s,\n", col.c(green, "+"), renderInline(al[key]))
			}
		}
		b.WriteString("        ]\n")
		return
	}
	if renderTextDiff(b, k, w, before, after, col) {
		return
	}
	bv, av := renderValue(before, "      "), renderValue(after, "      ")
	_, bs := before.(string)
	_, as := after.(string)
	if bs && as {
		// Two texts the line diff declined differ where only quoting shows
		// it (a final newline, a control character).
		bv, av = renderInline(before), renderInline(after)
	}
	fmt.Fprintf(b, "      %s %-*s = %s -> %s\n", col.c(yellow, "~"), w, k, bv, av)
}

// elementDiff renders one keyed element's changed fields.
func elementDiff(before, after map[string]any) string {
	var parts []string
	for _, f := range slices.Sorted(maps.Keys(after)) {
		if f == "path" || f == "name" {
			continue
		}
		if !reflect.DeepEqual(before[f], after[f]) {
			parts = append(parts, fmt.Sprintf("%s = %s -> %s", text.SafeLine(f), renderInline(before[f]), renderInline(after[f])))
		}
	}
	key, _ := after["path"].(string)
	if key == "" {
		key, _ = after["name"].(string)
	}
	return fmt.Sprintf("%q: %s", key, strings.Join(parts, ", "))
}

// renderHooks lists which hooks will run where, for each operation: hook
// steps are not resources, so they are not counted in the summary.
func renderHooks(b planWriter, p *engine.Plan, col colorizer) {
	first := true
	for _, s := range p.Steps {
		if s.Hook == nil {
			continue
		}
		if first {
			b.WriteString("\nHooks that will run:\n")
			first = false
		}
		h := s.Hook
		// A check hook measures from this machine; its node only fills
		// {{ node.ip }} and the like.
		where := "on " + s.Node
		switch {
		case h.Local:
			where = "on this machine (for " + h.Node.Name + ")"
		case h.Def.Type != hook.TypeShell:
			where = "for " + s.Node + " from this machine"
		}
		policy := string(h.Def.PolicyFor(h.Event.Operation))
		if policy == "retry" {
			policy = fmt.Sprintf("retry %d times, then %s", max(h.Def.Attempts, 1), h.Def.Fallback)
		}
		fmt.Fprintf(b, "  %s %s %s (%s hook, %s of %s, on failure %s)\n", col.c(bold, ">"), s.Addr, where,
			h.Def.Type, h.Event, strings.Join(h.Covers, ", "), policy)
	}
}
