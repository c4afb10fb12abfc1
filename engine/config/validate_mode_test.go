package config

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclwrite"
)

// validateCluster is a cluster and a master to add blocks to; the
// variables of each case are declared without a default.
const validateCluster = `
cluster "c" {
  kubernetes_version = "1.31.4"
}
`

const validateMaster = `node "m" {
  address = "10.0.0.1"
  roles   = ["master", "etcd"]
}
`

// TestValidateModeUnsetVariables: in validate mode a variable without a
// value is unknown, and what depends on it is not checked, with no error;
// what does not depend on it still is, at its line. Outside validate mode
// the same configuration is refused for the missing value.
func TestValidateModeUnsetVariables(t *testing.T) {
	tests := []struct {
		name    string
		cluster string // replaces validateCluster's cluster body when set
		bare    bool   // without validateMaster
		hcl     string
		unset   []string
		// want is each diagnostic as "summary@text" (a warning's summary
		// starts "warning: "), text being found on the line it points
		// at; none: the configuration loads.
		want  []string
		nodes int // len(Cluster.Nodes) when it loads
	}{
		{name: "address", hcl: `
variable "addr" { type = string }
node "w" {
  address = var.addr
  roles   = ["worker"]
}`, unset: []string{"addr"}, nodes: 2},
		{name: "address through a string function", hcl: `
variable "net" { type = string }
node "w" {
  address = cidrhost(var.net, 1)
  name    = "w-${substr(var.net, 0, 2)}"
  roles   = ["worker"]
}`, unset: []string{"net"}, nodes: 2},
		{name: "labels", hcl: `
variable "zone" { type = string }
variable "key" {}
node "w" {
  address = "10.0.0.2"
  roles   = ["worker"]
  labels  = { zone = var.zone, (var.key) = "x" }
}`, unset: []string{"zone", "key"}, nodes: 2},
		{name: "for_each", hcl: `
variable "workers" { type = map(string) }
node "w" {
  for_each = var.workers
  address  = each.value
  roles    = ["worker"]
}
output "addresses" {
  value = { for k, w in node.w : k => w.address }
}`, unset: []string{"workers"}, nodes: 1},
		{name: "for_each of a for expression", hcl: `
variable "workers" { type = map(string) }
node "w" {
  for_each = { for k, a in var.workers : k => a if k != "m" }
  address  = cidrhost("${each.value}/24", 1)
  roles    = ["worker"]
}`, unset: []string{"workers"}, nodes: 1},
		{name: "count", hcl: `
variable "n" { type = number }
node "w" {
  count   = var.n
  address = cidrhost("10.1.0.0/16", count.index + 1)
  roles   = ["worker"]
}
hook "prepare" {
  on     = ["pre-join"]
  nodes  = ["w-0"]
  source = "main.hcl"
}`, unset: []string{"n"}, nodes: 1},
		{name: "only nodes from an unknown for_each", bare: true, hcl: `
variable "workers" { type = map(string) }
node "only" {
  for_each = var.workers
  address  = each.value
  roles    = ["worker"]
}`, unset: []string{"workers"}, nodes: 0},
		{name: "references to unknown node attributes", hcl: `
variable "addr" { type = string }
node "w" {
  address = var.addr
  roles   = ["worker"]
}
node "x" {
  address = cidrhost("${node.w.address}/24", 2)
  roles   = ["worker"]
  labels  = { peer = node.w.name }
}`, unset: []string{"addr"}, nodes: 3},
		{name: "cross-attribute checks", cluster: `kubernetes_version = "1.31.4"
  api_endpoint       = var.vip
  network {
    service_cidr = var.svc
    pod_cidr     = "10.32.0.0/12"
  }
  certificates {
    validity     = var.ttl
    renew_before = "9000h"
  }`, hcl: `
variable "vip" { type = string }
variable "svc" { type = string }
variable "ttl" { type = string }
variable "bastion" { type = string }
connection {
  bastion {
    host = var.bastion
  }
}
node "m6" {
  address = "fd00::6"
  roles   = ["master"]
}
node "lb" {
  count   = 2
  address = "10.0.1.${count.index}"
  roles   = ["loadbalance"]
}
node "w" {
  address = split(":", cluster.api_endpoint)[0]
  roles   = ["worker"]
}`, unset: []string{"vip", "svc", "ttl", "bastion"}, nodes: 5},
		{name: "unknown names", hcl: `
variable "prefix" { type = string }
node "a" {
  name    = "${var.prefix}-a"
  address = "10.0.0.2"
  roles   = ["worker"]
}
node "b" {
  name    = "${var.prefix}-b"
  address = "10.0.0.3"
  roles   = ["worker"]
}`, unset: []string{"prefix"}, nodes: 3},
		{name: "hooks", hcl: `
variable "t" {}
variable "s" {}
variable "r" {}
node "w" {
  address = "10.0.0.2"
  roles   = ["worker"]
}
hook "check" {
  on   = ["post-join"]
  type = var.t
  web {
    url = "http://10.0.0.9/healthz"
  }
}
hook "where" {
  on     = "pre-deploy"
  scope  = var.s
  run_on = "operator"
  source = "main.hcl"
}
hook "which" {
  on     = ["pre-join"]
  roles  = var.r
  nodes  = []
  source = "main.hcl"
}`, unset: []string{"t", "s", "r"}, nodes: 2},
		{name: "etcd backend", hcl: `
variable "cert" { type = string }
backend "etcd" {
  endpoints = ["https://10.0.0.5:2379"]
  cert_file = var.cert
  key_file  = "client.key"
}`, unset: []string{"cert"}, nodes: 1},
		{name: "sensitive", hcl: `
variable "token" {
  type      = string
  sensitive = true
}
output "token" {
  value     = var.token
  sensitive = true
}
output "leak" {
  value = "t-${var.token}"
}`, unset: []string{"token"}, want: []string{`Output refers to sensitive values@"t-${var.token}"`}},
		{name: "typo beside an unset variable", hcl: `
variable "addr" { type = string }
node "w" {
  address = var.addr
  roles   = ["mastr"]
}`, unset: []string{"addr"}, want: []string{`Unknown role@"mastr"`}},
		{name: "typo in a block of unknown for_each", hcl: `
variable "workers" { type = map(string) }
node "w" {
  for_each = var.workers
  address  = each.value
  roles    = ["wroker"]
  arch     = "AMD64"
}`, unset: []string{"workers"}, want: []string{`Invalid arch@"AMD64"`, `Unknown role@"wroker"`}},
		{name: "wrong type of an unknown value", hcl: `
variable "addrs" { type = list(string) }
node "w" {
  address = var.addrs
  roles   = ["worker"]
}
node "x" {
  for_each = var.addrs
  address  = each.value
  roles    = ["worker"]
}`, unset: []string{"addrs"}, want: []string{"Incorrect attribute value type@= var.addrs", "Invalid for_each argument@for_each"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := validateCluster
			if tc.cluster != "" {
				src = strings.Replace(src, `kubernetes_version = "1.31.4"`, tc.cluster, 1)
			}
			if !tc.bare {
				src += validateMaster
			}
			src += tc.hcl
			dir := writeDir(t, map[string]string{"main.hcl": src})
			cfg, diags := Load(dir, VarInput{Validate: true})
			var got []string
			for _, d := range diags {
				summary := d.Summary
				if d.Severity == hcl.DiagWarning {
					summary = "warning: " + summary
				}
				got = append(got, summary+"@"+lineText(d))
			}
			var want []string
			for _, w := range tc.want {
				summary, text, _ := strings.Cut(w, "@")
				want = append(want, summary+"@"+strconv.Itoa(lineWith(t, src, text)))
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("errors %q, want %q:\n%s", got, want, render(cfg, diags))
			}
			if len(want) == 0 {
				if !reflect.DeepEqual(cfg.Unset, tc.unset) {
					t.Errorf("Unset = %q, want %q", cfg.Unset, tc.unset)
				}
				if n := len(cfg.Cluster.Nodes); n != tc.nodes {
					t.Errorf("%d nodes, want %d", n, tc.nodes)
				}
			}
			cfg, diags = Load(dir, VarInput{})
			for _, name := range tc.unset {
				if !strings.Contains(render(cfg, diags), `The variable "`+name+`" has no default`) {
					t.Errorf("outside validate mode, no error for the missing value of %s:\n%s", name, render(cfg, diags))
				}
			}
		})
	}
}

// lineText is the line number a diagnostic points at, as text.
func lineText(d *hcl.Diagnostic) string {
	if d.Subject == nil {
		return "(no source)"
	}
	return strconv.Itoa(d.Subject.Start.Line)
}

// lineWith is the number of the first line of src holding text.
func lineWith(t *testing.T, src, text string) int {
	t.Helper()
	for i, line := range strings.Split(src, "\n") {
		if strings.Contains(line, text) {
			return i + 1
		}
	}
	t.Fatalf("no line holds %q", text)
	return 0
}

// TestValidateModeWithoutDefaults validates every valid test
// configuration and every example with the defaults of all its variables
// removed: whatever depends on them, nothing may be reported.
func TestValidateModeWithoutDefaults(t *testing.T) {
	dirs, _ := filepath.Glob("testdata/valid/*")
	examples, _ := filepath.Glob("../../examples/*")
	dirs = append(dirs, examples...)
	for _, src := range dirs {
		t.Run(src, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
				t.Fatal(err)
			}
			declared := stripDefaults(t, dir)
			cfg, diags := Load(dir, VarInput{Validate: true})
			if diags.HasErrors() {
				t.Fatalf("without variable defaults:\n%s", render(cfg, diags))
			}
			if !reflect.DeepEqual(cfg.Unset, declared) {
				t.Errorf("Unset = %q, want every variable: %q", cfg.Unset, declared)
			}
		})
	}
}

// stripDefaults removes the default of every variable block of the
// *.hcl files of dir and returns the variables' names in file order.
func stripDefaults(t *testing.T, dir string) []string {
	t.Helper()
	paths, _ := filepath.Glob(filepath.Join(dir, "*.hcl"))
	var names []string
	for _, p := range paths {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		f, diags := hclwrite.ParseConfig(src, p, hcl.InitialPos)
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		for _, b := range f.Body().Blocks() {
			if b.Type() == "variable" {
				b.Body().RemoveAttribute("default")
				names = append(names, b.Labels()[0])
			}
		}
		if err := os.WriteFile(p, f.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return names
}

// TestValidateModeKeepsErrors: with every value known, validate mode
// reports exactly what loading for a plan does (testdata/errors).
func TestValidateModeKeepsErrors(t *testing.T) {
	paths, _ := filepath.Glob("testdata/errors/*.hcl")
	if len(paths) == 0 {
		t.Fatal("no error cases")
	}
	for _, path := range paths {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(src), "No value for required variable") {
			continue // the one thing validate mode reports differently
		}
		_, vars := annotations(t, string(src))
		dir := writeDir(t, map[string]string{"main.hcl": string(src)})
		_, plain := Load(dir, VarInput{Vars: vars})
		_, validate := Load(dir, VarInput{Vars: vars, Validate: true})
		if a, b := diagList(plain), diagList(validate); !reflect.DeepEqual(a, b) {
			t.Errorf("%s: validate mode reports\n%q\nwhere loading reports\n%q", path, b, a)
		}
	}
}

func diagList(diags hcl.Diagnostics) []string {
	out := make([]string, len(diags))
	for i, d := range diags {
		out[i] = d.Summary + " @ " + subjectString(d)
	}
	return out
}

// TestValidateModeEachAttributeUnknown makes, one at a time, each
// attribute of the valid test configurations unknown (a variable without
// a value and without a type): validate mode must report nothing, since
// every check that attribute feeds is then skipped.
func TestValidateModeEachAttributeUnknown(t *testing.T) {
	dirs, _ := filepath.Glob("testdata/valid/*")
	for _, src := range dirs {
		paths, _ := filepath.Glob(filepath.Join(src, "*.hcl"))
		for _, path := range paths {
			orig, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			f, diags := hclwrite.ParseConfig(orig, path, hcl.InitialPos)
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			n := len(attributePaths(f.Body(), ""))
			for i := 0; i < n; i++ {
				f, _ := hclwrite.ParseConfig(orig, path, hcl.InitialPos)
				at := attributePaths(f.Body(), "")[i]
				at.body.SetAttributeRaw(at.name, hclwrite.TokensForTraversal(hcl.Traversal{
					hcl.TraverseRoot{Name: "var"}, hcl.TraverseAttr{Name: "unset_value"}}))
				f.Body().AppendNewBlock("variable", []string{"unset_value"})
				dir := t.TempDir()
				if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, filepath.Base(path)), f.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				cfg, diags := Load(dir, VarInput{Validate: true})
				if diags.HasErrors() {
					t.Errorf("%s with %s unknown:\n%s", path, at.path, render(cfg, diags))
				}
			}
		}
	}
}

type attributePath struct {
	body *hclwrite.Body
	name string
	path string
}

// attributePaths lists the attributes that may refer to a variable: all
// but those of variable blocks and depends_on (a literal list).
func attributePaths(b *hclwrite.Body, prefix string) []attributePath {
	var out []attributePath
	names := make([]string, 0, len(b.Attributes()))
	for name := range b.Attributes() {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if name != "depends_on" {
			out = append(out, attributePath{b, name, prefix + name})
		}
	}
	for i, blk := range b.Blocks() {
		if blk.Type() == "variable" {
			continue
		}
		out = append(out, attributePaths(blk.Body(), fmt.Sprintf("%s%s#%d.", prefix, blk.Type(), i))...)
	}
	return out
}
