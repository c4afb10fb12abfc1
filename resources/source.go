package resources

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
)

// Pos is a position in a configuration file, counted as HCL counts it:
// Line and Column from 1, Byte (an offset) from 0.
type Pos struct {
	Line   int `json:"line"`
	Column int `json:"column"`
	Byte   int `json:"byte"`
}

// SourceRange is a span of a configuration file. engine/config copies it
// from HCL's own range, so that the model, the kinds that expand it and
// the engine can point at the attribute at fault without importing HCL.
type SourceRange struct {
	Filename string `json:"filename"`
	Start    Pos    `json:"start"`
	End      Pos    `json:"end"`
}

// IsZero reports a range nobody filled in (a model built by hand).
func (r SourceRange) IsZero() bool { return r.Filename == "" }

// String is "main.hcl:12", the form the Source fields have always had.
func (r SourceRange) String() string {
	return fmt.Sprintf("%s:%d", filepath.Base(r.Filename), r.Start.Line)
}

// SourceRanges locate one block of the configuration: the block itself
// and those of its attributes that checks after loading may blame
// (keyed by attribute name; an attribute of a nested block as
// "block.attribute", such as "addons.coredns").
type SourceRanges struct {
	Block SourceRange
	Attrs map[string]SourceRange
}

// At is the range of the attribute name, or the block's when the
// attribute was not written (its default is then the block's doing).
func (s SourceRanges) At(name string) SourceRange {
	if r, ok := s.Attrs[name]; ok {
		return r
	}
	return s.Block
}

// SourceError is a problem found after the configuration loaded — while
// the kinds expand the model, or the engine plans — that one place of the
// configuration is at fault for. The command line shows it exactly as it
// shows the configuration's own diagnostics: Summary, then the source
// line with Range underlined, then Detail. Error() keeps the plain
// "main.hcl:12: detail" form for logs and for callers that only print.
type SourceError struct {
	Range   SourceRange
	Summary string
	Detail  string
}

func (e *SourceError) Error() string {
	if e.Range.IsZero() {
		return e.Detail
	}
	return e.Range.String() + ": " + e.Detail
}

// Blame makes a SourceError at r; the detail is formatted as fmt.Sprintf
// does.
func Blame(r SourceRange, summary, format string, a ...any) error {
	return &SourceError{Range: r, Summary: summary, Detail: fmt.Sprintf(format, a...)}
}

// SourceLine is the range of a "file.hcl:12" Source alone: the line, for
// a model built without engine/config (tests) that sets Source only.
func SourceLine(source string) SourceRange {
	i := strings.LastIndexByte(source, ':')
	if i < 0 {
		return SourceRange{Filename: source}
	}
	line, _ := strconv.Atoi(source[i+1:])
	return SourceRange{Filename: source[:i], Start: Pos{Line: line}, End: Pos{Line: line}}
}

// at is At, falling back to the Source line when no range was filled in.
func (s SourceRanges) at(attr, source string) SourceRange {
	if s.Block.IsZero() {
		return SourceLine(source)
	}
	return s.At(attr)
}

// At is where the cluster's attribute attr was written (see Ranges),
// else its block.
func (c *Cluster) At(attr string) SourceRange { return c.Ranges.at(attr, c.Source) }

// At is where the node's attribute attr was written (see Ranges), else its
// block.
func (n Node) At(attr string) SourceRange { return n.Ranges.at(attr, n.Source) }

// Where is the manifest's element of the manifests list.
func (m AddonManifest) Where() SourceRange { return orSource(m.Range, m.Source) }

// Where is the block (or list element) that declared the resource.
func (d *Desired) Where() SourceRange { return orSource(d.Range, d.Source) }

func orSource(r SourceRange, source string) SourceRange {
	if r.IsZero() {
		return SourceLine(source)
	}
	return r
}
