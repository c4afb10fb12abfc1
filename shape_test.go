package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// Limits on the shape of non-test code, so that a file holds one idea and
// a function reads on one screen. A file may pass maxFileLines when it says
// why in a comment starting "Long file:"; a function may pass maxFuncLines
// when its doc comment starts a line with "Long function:" (a table or a
// template, not logic).
const (
	maxFileLines = 400
	maxFuncLines = 80
)

// TestCodeShape is run by `make check`.
func TestCodeShape(t *testing.T) {
	out, err := exec.Command("git", "ls-files", "*.go").Output()
	if err != nil {
		t.Skipf("git ls-files: %v", err)
	}
	for _, path := range strings.Fields(string(out)) {
		if strings.HasSuffix(path, "_test.go") || strings.HasPrefix(path, "tools/bundle/") {
			continue
		}
		for _, p := range shapeProblems(t, path) {
			t.Error(p)
		}
	}
}

func shapeProblems(t *testing.T, path string) []string {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var out []string
	if n := fset.Position(f.End()).Line; n > maxFileLines && !hasMarker(f.Comments, "Long file:") {
		out = append(out, path+": "+strconv.Itoa(n)+" lines: split it by idea, or say why not in a \"Long file:\" comment")
	}
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Body == nil {
			continue
		}
		n := fset.Position(fd.End()).Line - fset.Position(fd.Pos()).Line + 1
		if n > maxFuncLines && (fd.Doc == nil || !hasMarker([]*ast.CommentGroup{fd.Doc}, "Long function:")) {
			out = append(out, path+": func "+fd.Name.Name+" has "+strconv.Itoa(n)+" lines (at most "+strconv.Itoa(maxFuncLines)+")")
		}
	}
	return out
}

func hasMarker(groups []*ast.CommentGroup, marker string) bool {
	for _, g := range groups {
		for _, c := range g.List {
			if strings.HasPrefix(strings.TrimPrefix(c.Text, "// "), marker) {
				return true
			}
		}
	}
	return false
}
