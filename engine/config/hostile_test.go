package config

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/hashicorp/hcl/v2"
)

// Editors' files in the configuration directory are not configuration:
// a hidden copy, Emacs's lock and autosave files, a backup.
func TestEditorFilesAreIgnored(t *testing.T) {
	broken := "this is not HCL {"
	dir := writeDir(t, map[string]string{
		"main.hcl":   minimal + oneNode,
		".main.hcl":  broken,
		".#main.hcl": broken,
		"#main.hcl#": broken,
		"main.hcl~":  broken,
		".old.hcl":   minimal, // a second cluster block, were it read
	})
	cfg := mustLoad(t, dir, VarInput{})
	if len(cfg.Files) != 1 || cfg.Files[filepath.Join(dir, "main.hcl")] == nil {
		t.Fatalf("files read: %v", keys(cfg.Files))
	}
	for _, name := range []string{".main.hcl", ".#main.hcl", "#main.hcl#", "main.hcl~", ".hcl"} {
		if !ignoredFile(name) {
			t.Errorf("%s is read", name)
		}
	}
	if ignoredFile("main.hcl") || ignoredFile("#1.hcl") {
		t.Error("a configuration file is ignored")
	}
	// A directory of hidden files only has no configuration.
	_, diags := Load(writeDir(t, map[string]string{".main.hcl": minimal + oneNode}), VarInput{})
	if len(diags) != 1 || diags[0].Summary != "No configuration files" || !strings.Contains(diags[0].Detail, "hidden ones") {
		t.Fatalf("diagnostics = %v", diags)
	}
}

func keys(m map[string][]byte) []string {
	var out []string
	for k := range m {
		out = append(out, filepath.Base(k))
	}
	return out
}

// keyConfig has the default connection's key on line 7 and the node's
// bastion's on line 17.
const keyConfig = minimal + `
connection {
  private_key_file = "keys/id"
}

node "m0" {
  address = "10.0.0.${count.index + 1}"
  roles   = ["master", "etcd"]
  count   = 3
  connection {
    bastion {
      host             = "10.0.0.9"
      private_key_file = "keys/jump"
    }
  }
}
`

// With CheckKeyFiles (validate, plan, apply), a private key file that
// is missing or unreadable is an error at its line, once however many
// nodes use it; the key is not read, let alone shown.
func TestPrivateKeyFilesAreChecked(t *testing.T) {
	dir := writeDir(t, map[string]string{"main.hcl": keyConfig})
	mustLoad(t, dir, VarInput{}) // without the option, as before
	_, diags := loadErrors(t, dir, VarInput{CheckKeyFiles: true})
	wantAt(t, diags, "Private key file not found", 7, "private_key_file is "+filepath.Join(dir, "keys/id")+", which does not exist")
	if len(diags) != 1 { // the nodes that use the connection are not evaluated
		t.Errorf("diagnostics = %v", diags)
	}
	secret := "-----BEGIN OPENSSH PRIVATE KEY----- SECRET"
	writeFile(t, filepath.Join(dir, "keys/id"), secret)
	_, diags = loadErrors(t, dir, VarInput{CheckKeyFiles: true})
	wantAt(t, diags, "Private key file not found", 17, "keys/jump, which does not exist")
	if len(diags) != 1 { // once for the three nodes
		t.Errorf("%d diagnostics, want one: %v", len(diags), diags)
	}

	os.Remove(filepath.Join(dir, "keys/jump"))
	if err := os.Mkdir(filepath.Join(dir, "keys/jump"), 0o700); err != nil {
		t.Fatal(err)
	}
	_, diags = loadErrors(t, dir, VarInput{CheckKeyFiles: true})
	wantAt(t, diags, "Cannot read private key file", 17, "keys/jump, which is a directory")
	if len(diags) != 1 {
		t.Errorf("diagnostics = %v", diags)
	}

	// A FIFO is refused without being opened (which would wait for a writer).
	os.Remove(filepath.Join(dir, "keys/jump"))
	if err := syscall.Mkfifo(filepath.Join(dir, "keys/jump"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, diags = loadErrors(t, dir, VarInput{CheckKeyFiles: true})
	wantAt(t, diags, "Cannot read private key file", 17, "which is not a regular file")

	os.Remove(filepath.Join(dir, "keys/jump"))
	writeFile(t, filepath.Join(dir, "keys/jump"), secret)
	if os.Geteuid() != 0 { // root reads any file
		os.Chmod(filepath.Join(dir, "keys/jump"), 0)
		_, diags = loadErrors(t, dir, VarInput{CheckKeyFiles: true})
		wantAt(t, diags, "Cannot read private key file", 17, "cannot be read: permission denied")
		os.Chmod(filepath.Join(dir, "keys/jump"), 0o600)
	}
	cfg := mustLoad(t, dir, VarInput{CheckKeyFiles: true})
	if b := cfg.Cluster.Nodes[0].Connection.Bastion; b == nil || b.PrivateKeyFile != filepath.Join(dir, "keys/jump") {
		t.Fatalf("bastion = %+v", b)
	}
	for _, d := range diags {
		if strings.Contains(d.Detail, "SECRET") {
			t.Errorf("the key's content in a message: %s", d.Detail)
		}
	}

	// validate mode: a key named by a variable without a value is not known, so not checked.
	vdir := writeDir(t, map[string]string{"main.hcl": strings.Replace(keyConfig, `"keys/id"`, "var.key", 1) + "variable \"key\" {}\n"})
	writeFile(t, filepath.Join(vdir, "keys/jump"), secret)
	mustLoad(t, vdir, VarInput{CheckKeyFiles: true, Validate: true})
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// wantAt checks that diags have summary at line, with detail in its Detail.
func wantAt(t *testing.T, diags hcl.Diagnostics, summary string, line int, detail string) {
	t.Helper()
	for _, d := range diags {
		if d.Summary == summary && d.Subject != nil && d.Subject.Start.Line == line && strings.Contains(d.Detail, detail) {
			return
		}
	}
	t.Errorf("no %q at line %d with %q in: %v", summary, line, detail, diags)
}

// A value echoed in an error is cut to its first bytes and its length,
// and the snippet of a long line is cut too: never megabytes, never the
// value twice.
func TestLongValuesAreNotEchoed(t *testing.T) {
	long := strings.Repeat("a", 1<<20)
	for name, c := range map[string]struct {
		hcl, summary string
		vars         []string
	}{
		"config_dir":       {`config_dir = "` + long + `"`, "Invalid config_dir", nil},
		"number":           {`max_unavailable = ` + strings.Repeat("9", 1<<20), "Number too long", nil},
		"HCL's own":        {long + ` = 1`, "Unsupported argument", nil},
		"from a variable":  {`config_dir = var.d`, "Invalid config_dir", []string{"d=" + long}},
		"function's error": {`api_endpoint = cidrhost(var.d, 1)`, "Error in function call", []string{"d=" + long}},
	} {
		t.Run(name, func(t *testing.T) {
			src := "variable \"d\" {\n  default = \"\"\n}\ncluster \"demo\" {\n  kubernetes_version = \"1.31.4\"\n  " + c.hcl + "\n}\n" + oneNode
			cfg, diags := loadErrors(t, writeDir(t, map[string]string{"main.hcl": src}), VarInput{Vars: c.vars})
			wantAt(t, diags, c.summary, 6, "")
			var out bytes.Buffer
			if err := WriteDiagnostics(&out, cfg.Files, diags, false, 100); err != nil {
				t.Fatal(err)
			}
			if out.Len() > 4096 {
				t.Errorf("%d bytes of output:\n%.2000s", out.Len(), out.String())
			}
			if n := strings.Count(out.String(), "…("); n < 1 {
				t.Errorf("no cut marked in:\n%s", out.String())
			}
			for _, d := range diags {
				if len(d.Detail) > 1024 {
					t.Errorf("detail of %d bytes: %.300s", len(d.Detail), d.Detail)
				}
			}
		})
	}
}

func TestQuoted(t *testing.T) {
	if got := quoted("short"); got != `"short"` {
		t.Errorf("quoted(short) = %s", got)
	}
	long := strings.Repeat("é", 100) // 200 bytes: the cut falls inside a character
	if got, want := quoted(long), `"`+strings.Repeat("é", 50)+`"…(200 bytes)`; got != want {
		t.Errorf("quoted = %s, want %s", got, want)
	}
	s := `An argument named "` + strings.Repeat("x", 1000) + `" is not expected here; "ok" stays.`
	if got, want := capQuotes(s), `An argument named "`+strings.Repeat("x", 100)+`"…(1000 bytes) is not expected here; "ok" stays.`; got != want {
		t.Errorf("capQuotes = %s", got)
	}
}

// An expression of thousands of lines shows its first maxSnippetLines,
// in color too.
func TestLongSnippetIsCut(t *testing.T) {
	src := minimal[:len(minimal)-2] + "  config_dir = [" + strings.Repeat("\n    1,", 5000) + "\n  ]\n}\n" + oneNode
	cfg, diags := loadErrors(t, writeDir(t, map[string]string{"main.hcl": src}), VarInput{})
	for _, color := range []bool{false, true} {
		var out bytes.Buffer
		if err := WriteDiagnostics(&out, cfg.Files, diags, color, 100); err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(out.String(), "    1,"); n != maxSnippetLines-1 || !strings.Contains(out.String(), "main.hcl line 4:") {
			t.Errorf("%d source lines shown, want %d:\n%s", n, maxSnippetLines-1, out.String())
		}
		if testing.Verbose() && !color {
			t.Log(out.String())
		}
	}
}
