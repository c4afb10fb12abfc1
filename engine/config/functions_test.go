package config

import (
	"strings"
	"testing"

	"github.com/zclconf/go-cty/cty"
)

// evalOutput loads a one-node cluster with output "x" { value = expr }
// plus extra files, and returns the output's value or the error text.
func evalOutput(t *testing.T, expr string, extra map[string]string) (cty.Value, string) {
	t.Helper()
	files := map[string]string{"main.hcl": minimal + `
node "m0" {
  address = "10.0.0.1"
  roles   = ["master", "etcd"]
}
output "x" {
  value = ` + expr + `
}
`}
	for k, v := range extra {
		files[k] = v
	}
	cfg, diags := Load(writeDir(t, files), VarInput{})
	if diags.HasErrors() {
		return cty.NilVal, diags.Error()
	}
	return cfg.Outputs[0].Value, ""
}

func TestFunctions(t *testing.T) {
	cases := []struct {
		expr    string
		want    cty.Value
		wantErr string // substring of the error, when the call must fail
	}{
		// cidrhost: Terraform's semantics, IPv4 and IPv6, negative numbers from the end
		{expr: `cidrhost("10.12.112.0/20", 16)`, want: cty.StringVal("10.12.112.16")},
		{expr: `cidrhost("10.12.112.0/20", 268)`, want: cty.StringVal("10.12.113.12")},
		{expr: `cidrhost("10.12.112.0/20", -1)`, want: cty.StringVal("10.12.127.255")},
		{expr: `cidrhost("10.12.112.0/20", -4096)`, want: cty.StringVal("10.12.112.0")},
		{expr: `cidrhost("10.12.113.7/20", 1)`, want: cty.StringVal("10.12.112.1")}, // host bits ignored
		{expr: `cidrhost("10.0.0.0/32", 0)`, want: cty.StringVal("10.0.0.0")},
		{expr: `cidrhost("fd00:fd12:3456:7890::/56", 34)`, want: cty.StringVal("fd00:fd12:3456:7800::22")},
		{expr: `cidrhost("::/0", -1)`, want: cty.StringVal("ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff")},
		{expr: `cidrhost("10.0.0.0/30", 4)`, wantErr: "prefix of 30 does not accommodate a host numbered 4"},
		{expr: `cidrhost("10.0.0.0/30", -5)`, wantErr: "prefix of 30 does not accommodate a host numbered -5"},
		{expr: `cidrhost("10.0.0.0/33", 1)`, wantErr: "invalid CIDR expression"},
		{expr: `cidrhost("not-a-cidr", 1)`, wantErr: "invalid CIDR expression: invalid CIDR address: not-a-cidr"},
		{expr: `cidrhost("10.0.0.0/24", 1.5)`, wantErr: "whole number"},
		// cidrsubnet
		{expr: `cidrsubnet("172.16.0.0/12", 4, 2)`, want: cty.StringVal("172.18.0.0/16")},
		{expr: `cidrsubnet("10.1.2.0/24", 4, 15)`, want: cty.StringVal("10.1.2.240/28")},
		{expr: `cidrsubnet("10.0.0.0/8", 0, 0)`, want: cty.StringVal("10.0.0.0/8")},
		{expr: `cidrsubnet("10.99.0.0/8", 8, 255)`, want: cty.StringVal("10.255.0.0/16")}, // host bits ignored
		{expr: `cidrsubnet("fd00:fd12:3456:7890::/56", 16, 162)`, want: cty.StringVal("fd00:fd12:3456:7800:a200::/72")},
		{expr: `cidrsubnet("fd00::/8", 64, 1)`, want: cty.StringVal("fd00::100:0:0:0/72")},
		{expr: `cidrsubnet("10.0.0.0/8", 8, 256)`, wantErr: "prefix extension of 8 does not accommodate a subnet numbered 256"},
		{expr: `cidrsubnet("10.0.0.0/8", 8, -1)`, wantErr: "does not accommodate a subnet numbered -1"},
		{expr: `cidrsubnet("10.0.0.0/30", 3, 0)`, wantErr: "insufficient address space to extend prefix of 30 by 3"},
		{expr: `cidrsubnet("10.0.0.0/8", -1, 0)`, wantErr: "newbits must not be negative"},
		{expr: `cidrsubnet("10.0.0.0", 8, 0)`, wantErr: "invalid CIDR expression"},
		{expr: `cidrnetmask("10.0.0.0/12")`, want: cty.StringVal("255.240.0.0")},
		{expr: `cidrnetmask("0.0.0.0/0")`, want: cty.StringVal("0.0.0.0")},
		// strings and collections
		{expr: `format("%s-%03d", "w", 7)`, want: cty.StringVal("w-007")},
		{expr: `join(",", split(" ", "a b c"))`, want: cty.StringVal("a,b,c")},
		{expr: `upper(lower("MiXeD"))`, want: cty.StringVal("MIXED")},
		{expr: `replace("a-b-c", "-", "_")`, want: cty.StringVal("a_b_c")},
		{expr: `replace("w01 w22", "/w(\\d+)/", "n$1")`, want: cty.StringVal("n01 n22")},
		{expr: `trimspace("  x \n")`, want: cty.StringVal("x")},
		{expr: `length("héllo")`, want: cty.NumberIntVal(5)},
		{expr: `length({ a = 1, b = 2 })`, want: cty.NumberIntVal(2)},
		{expr: `length([1, 2, 3])`, want: cty.NumberIntVal(3)},
		{expr: `length(keys(merge({ a = 1 }, { b = 2 })))`, want: cty.NumberIntVal(2)},
		{expr: `values({ b = "2", a = "1" })`, want: cty.TupleVal([]cty.Value{cty.StringVal("1"), cty.StringVal("2")})},
		{expr: `concat(["a"], ["b", "c"])[2]`, want: cty.StringVal("c")},
		{expr: `range(3)`, want: cty.ListVal([]cty.Value{cty.NumberIntVal(0), cty.NumberIntVal(1), cty.NumberIntVal(2)})},
		{expr: `length(toset(["a", "a", "b"]))`, want: cty.NumberIntVal(2)},
		{expr: `tolist(toset(["b", "a"]))[0]`, want: cty.StringVal("a")},
		{expr: `tomap({ a = "x" })["a"]`, want: cty.StringVal("x")},
		{expr: `contains(["a", "b"], "b")`, want: cty.True},
		{expr: `lookup({ a = "x" }, "b", "dflt")`, want: cty.StringVal("dflt")},
		{expr: `coalesce("", "fallback")`, want: cty.StringVal("fallback")},
		{expr: `element(["a", "b"], 3)`, want: cty.StringVal("b")},
		{expr: `max(3, 9, 4)`, want: cty.NumberIntVal(9)},
		{expr: `flatten([["a"], ["b", ["c"]]])[2]`, want: cty.StringVal("c")},
		{expr: `distinct(["a", "a", "b"])`, want: cty.ListVal([]cty.Value{cty.StringVal("a"), cty.StringVal("b")})},
		{expr: `regex("^v?(\\d+)\\.", "v1.31.4")[0]`, want: cty.StringVal("1")},
		{expr: `index(["a", "b", "c"], "c")`, want: cty.NumberIntVal(2)},
		{expr: `index(["a"], "z")`, wantErr: "item not found"},
		{expr: `try(tonumber("x"), 7)`, want: cty.NumberIntVal(7)},
		// encodings
		{expr: `jsonencode({ a = [1, "b"] })`, want: cty.StringVal(`{"a":[1,"b"]}`)},
		{expr: `jsondecode("{\"k\": 2}").k`, want: cty.NumberIntVal(2)},
		{expr: `base64encode("eggo")`, want: cty.StringVal("ZWdnbw==")},
		{expr: `base64decode("ZWdnbw==")`, want: cty.StringVal("eggo")},
		{expr: `base64decode("%%%")`, wantErr: "not valid Base64"},
		{expr: `sha256("eggo")`, want: cty.StringVal("54036a6f04e1e3bf8b407d48ffe5899a5f89e86c2d1590470a60e576305fa4c2")},
		{expr: `upper("a", "b")`, wantErr: "Too many function arguments"},
	}
	for _, c := range cases {
		t.Run(c.expr, func(t *testing.T) {
			got, errText := evalOutput(t, c.expr, nil)
			if c.wantErr != "" {
				if !strings.Contains(errText, c.wantErr) {
					t.Fatalf("error = %q, want it to contain %q", errText, c.wantErr)
				}
				return
			}
			if errText != "" {
				t.Fatal(errText)
			}
			if !got.RawEquals(c.want) {
				t.Fatalf("= %#v, want %#v", got, c.want)
			}
		})
	}
}

func TestFileFunctions(t *testing.T) {
	tmpl := "%{ for n in nodes ~}\nserver ${n}:6443\n%{ endfor ~}\nport=${upper(port)}\n"
	cases := []struct {
		name, expr string
		want       string
		wantErr    string
	}{
		{name: "file relative to config dir", expr: `file("files/motd.txt")`, want: "hello\n"},
		{name: "file missing", expr: `file("files/none.txt")`, wantErr: "no file exists at files/none.txt"},
		{name: "filebase64", expr: `filebase64("files/motd.txt")`, want: "aGVsbG8K"},
		{name: "templatefile", expr: `templatefile("files/haproxy.tmpl", { nodes = ["a", "b"], port = "x" })`,
			want: "server a:6443\nserver b:6443\nport=X\n"},
		{name: "templatefile missing var", expr: `templatefile("files/haproxy.tmpl", { nodes = [] })`,
			wantErr: `refers to "port" at line 4, but vars has no such key`},
		{name: "templatefile vars not a map", expr: `templatefile("files/haproxy.tmpl", "x")`, wantErr: "vars must be a map"},
		{name: "templatefile recursion", expr: `templatefile("files/rec.tmpl", {})`,
			wantErr: "cannot call templatefile from inside a template"},
	}
	extra := map[string]string{
		"files/motd.txt":     "hello\n",
		"files/haproxy.tmpl": tmpl,
		"files/rec.tmpl":     `${templatefile("files/motd.txt", {})}`,
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, errText := evalOutput(t, c.expr, extra)
			if c.wantErr != "" {
				if !strings.Contains(errText, c.wantErr) {
					t.Fatalf("error = %q, want it to contain %q", errText, c.wantErr)
				}
				return
			}
			if errText != "" {
				t.Fatal(errText)
			}
			if got.AsString() != c.want {
				t.Fatalf("= %q, want %q", got.AsString(), c.want)
			}
		})
	}
}
