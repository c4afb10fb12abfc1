package config

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclparse"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"

	"github.com/eggo-project/eggo/resources"
)

// loader holds the state of one Load.
type loader struct {
	dir       string
	parser    *hclparse.Parser
	sources   map[string][]byte // diagnostics file name → source
	funcs     map[string]function.Function
	readFiles map[string][]byte // files read by file()/templatefile(), for Hash
	validate  bool              // VarInput.Validate: see partial.go
	keyFiles  *keyFileCheck     // VarInput.CheckKeyFiles; nil when off
	confine   *confinement      // VarInput.ConfineFiles; nil when off
	unset     []string          // validate mode: the variables taken as unknown

	variables   []*variable
	varByName   map[string]*variable
	varObject   cty.Value // var.* as one object
	locals      map[string]*local
	clusters    []*clusterBlock
	connection  *connectionBody       // top-level defaults; nil if absent
	defaultConn connOverride          // its evaluated fields
	baseConn    *resources.Connection // defaults with defaultConn applied, made once
	nodes       []*nodeBlock          // declaration order
	nodeByName  map[string]*nodeBlock
	outputs     []*outputBlock

	vertices   []*vertex // declaration order
	vertexByID map[string]*vertex
	values     map[string]cty.Value // evaluated value of each vertex by id
}

func newLoader(dir string) *loader {
	l := &loader{
		dir:        dir,
		parser:     hclparse.NewParser(),
		sources:    map[string][]byte{},
		readFiles:  map[string][]byte{},
		varByName:  map[string]*variable{},
		locals:     map[string]*local{},
		nodeByName: map[string]*nodeBlock{},
	}
	l.funcs = l.functions()
	return l
}

func (l *loader) load(in VarInput) (*Config, hcl.Diagnostics) {
	l.validate = in.Validate
	if in.CheckKeyFiles {
		l.keyFiles = &keyFileCheck{seen: map[string]bool{}}
	}
	if confineRequested(in) {
		c, err := newConfinement(l.dir)
		if err != nil {
			return nil, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Cannot read configuration directory",
				Detail: fmt.Sprintf("Resolving the directory %s to confine its files failed: %s.", l.dir, reason(err))}}
		}
		l.confine = c
	}
	files, diags := l.parseDir()
	if diags.HasErrors() {
		return nil, diags
	}
	var blocks hcl.Blocks
	for _, f := range files {
		content, d := f.Body.Content(rootSchema)
		diags = append(diags, d...)
		blocks = append(blocks, content.Blocks...)
	}
	diags = append(diags, l.declare(blocks)...)
	if diags.HasErrors() {
		return nil, diags
	}
	diags = append(diags, l.resolveVariables(in)...)
	if diags.HasErrors() {
		return nil, diags
	}
	diags = append(diags, l.evaluate()...)
	if diags.HasErrors() {
		return nil, diags
	}
	cluster, d := l.assemble()
	diags = append(diags, d...)
	if diags.HasErrors() {
		return nil, diags
	}
	outputs, d := l.evalOutputs()
	diags = append(diags, d...)
	if diags.HasErrors() {
		return nil, diags
	}
	return &Config{
		Dir:     l.dir,
		Cluster: cluster,
		Outputs: outputs,
		Files:   l.sources,
		Hash:    l.hash(),
		Unset:   l.unset,
	}, diags
}

// parseDir parses every *.hcl file of the directory in name order, so the
// declaration order of blocks is stable. Editors' files are skipped.
func (l *loader) parseDir() ([]*hcl.File, hcl.Diagnostics) {
	entries, err := os.ReadDir(l.dir)
	if err != nil {
		return nil, hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Cannot read configuration directory",
			Detail:   fmt.Sprintf("Reading the directory %s failed: %s.", l.dir, err),
		}}
	}
	var names []string
	for _, e := range entries {
		if e.Type().IsRegular() && strings.HasSuffix(e.Name(), ".hcl") && !ignoredFile(e.Name()) {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	if len(names) == 0 {
		return nil, hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "No configuration files",
			Detail: fmt.Sprintf("The directory %s has no *.hcl files (hidden ones, like .main.hcl, and editors' backups are skipped). "+
				"Point eggo at the directory that holds the cluster definition.", l.dir),
		}}
	}
	var files []*hcl.File
	var diags hcl.Diagnostics
	for _, name := range names {
		path := filepath.Join(l.dir, name)
		src, err := os.ReadFile(path)
		if err != nil {
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Cannot read configuration file",
				Detail:   fmt.Sprintf("Reading %s failed: %s.", path, err),
			})
			continue
		}
		l.sources[path] = src
		if d := checkNesting(src, path, false); d.HasErrors() {
			diags = append(diags, d...)
			continue
		}
		f, d := l.parser.ParseHCL(src, path)
		diags = append(diags, d...)
		if f != nil && !d.HasErrors() {
			files = append(files, f)
		}
	}
	return files, diags
}

// ignoredFile says whether a file of the configuration directory is an
// editor's or the system's rather than the user's, as Terraform judges:
// hidden files (.main.hcl, Emacs's lock .#main.hcl), Emacs's autosave
// #main.hcl# and backups ending in "~".
func ignoredFile(name string) bool {
	return strings.HasPrefix(name, ".") || strings.HasSuffix(name, "~") ||
		strings.HasPrefix(name, "#") && strings.HasSuffix(name, "#")
}

// declare runs the first decoding stage: every block's body is checked
// against its schema and registered by name, nothing is evaluated yet.
func (l *loader) declare(blocks hcl.Blocks) hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, b := range blocks {
		switch b.Type {
		case "variable":
			diags = append(diags, l.declareVariable(b)...)
		case "locals":
			diags = append(diags, l.declareLocals(b)...)
		case "cluster":
			diags = append(diags, l.declareCluster(b)...)
		case "connection":
			diags = append(diags, l.declareConnection(b)...)
		case "node":
			diags = append(diags, l.declareNode(b)...)
		case "output":
			diags = append(diags, l.declareOutput(b)...)
		}
	}
	if len(l.clusters) == 0 {
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Missing cluster block",
			Detail:   fmt.Sprintf("The configuration in %s needs exactly one cluster \"NAME\" { ... } block.", l.dir),
		})
	}
	if len(l.nodes) == 0 && len(l.clusters) > 0 {
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "No nodes",
			Detail:   "A cluster needs at least one node \"LABEL\" { address = ...  roles = [...] } block.",
			Subject:  l.clusters[0].block.DefRange.Ptr(),
		})
	}
	return diags
}

// source renders a range as "file.hcl:12": the model's Source fields, and
// messages that point at a second place.
func source(rng hcl.Range) string {
	return fmt.Sprintf("%s:%d", filepath.Base(rng.Filename), rng.Start.Line)
}
