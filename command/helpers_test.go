package command

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"filippo.io/age"
)

// result is what one eggo invocation produced.
type result struct {
	code     int
	out, err string
}

func (r result) all() string { return r.out + r.err }

// invocation configures one call of Run.
type invocation struct {
	in     string
	inTTY  bool
	outTTY bool
	env    []string
}

// eggo runs the CLI in-process. Run may os.Chdir (for -chdir), so the
// working directory is put back afterwards; these tests never run in
// parallel for the same reason.
func eggo(t *testing.T, inv invocation, args ...string) result {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := os.Chdir(wd); err != nil {
			t.Fatalf("restoring the working directory: %v", err)
		}
	}()
	var out, errb bytes.Buffer
	env := inv.env
	if env == nil {
		env = []string{"HOME=" + os.Getenv("HOME")}
	}
	code := Run(args, Streams{In: strings.NewReader(inv.in), Out: &out, Err: &errb, InTTY: inv.inTTY, OutTTY: inv.outTTY, Env: env})
	return result{code: code, out: out.String(), err: errb.String()}
}

// fixture is a configuration directory whose single local "host" installs
// its bundle under a temp root, so nothing is written outside temp dirs:
// the bundle mirrors the target root (pkg/amd64/$ROOT/x lands at $ROOT/x).
type fixture struct {
	t    *testing.T
	dir  string // configuration directory (for -chdir)
	root string // where the host's files land
	// tmp is the eggo processes' TMPDIR: a hook on a local host keeps
	// its scripts there, and one a test kills mid-upload would otherwise
	// leave its directory in /tmp.
	tmp string
}

const passwordValue = "pw-VALUE-never-printed-9f3c"

func newFixture(t *testing.T) *fixture {
	t.Helper()
	base := t.TempDir()
	f := &fixture{t: t, dir: filepath.Join(base, "cfg"), root: filepath.Join(base, "root"), tmp: filepath.Join(base, "tmp")}
	for _, d := range []string{f.dir, f.root, f.tmp} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	f.bundle("opt/app/hello.txt", "hello\n", 0o644)
	f.bundle("opt/app/bin/run", "#!/bin/sh\necho run\n", 0o755)
	f.writeConfig("")
	return f
}

// bundle adds a file to the package bundle at rel under the temp root.
func (f *fixture) bundle(rel, content string, mode os.FileMode) {
	f.t.Helper()
	p := filepath.Join(f.dir, "pkg", "amd64", f.root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), mode); err != nil {
		f.t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		f.t.Fatal(err)
	}
}

// writeConfig writes main.hcl; extra goes inside the node block.
func (f *fixture) writeConfig(extra string) {
	f.t.Helper()
	hcl := `cluster "t" {
  kubernetes_version = "1.31.4"
  packages           = "./pkg"
}

connection {
  type         = "local"
  password_env = "EGGO_TEST_PASSWORD"
}

node "n1" {
  address = "127.0.0.1"
  roles   = ["master", "etcd"]
` + extra + `}
`
	f.write("main.hcl", hcl)
}

func (f *fixture) write(name, content string) {
	f.t.Helper()
	if err := os.WriteFile(filepath.Join(f.dir, name), []byte(content), 0o644); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) chdir() string { return "-chdir=" + f.dir }

func (f *fixture) statePath() string { return filepath.Join(f.dir, "eggo.state") }

// env is the environment every fixture command gets: the password's value
// is there so tests can check it never shows.
func (f *fixture) env(extra ...string) []string {
	return append([]string{"HOME=" + os.Getenv("HOME"), "TMPDIR=" + f.tmp, "EGGO_TEST_PASSWORD=" + passwordValue}, extra...)
}

func (f *fixture) run(args ...string) result {
	f.t.Helper()
	return eggo(f.t, invocation{env: f.env()}, append([]string{f.chdir()}, args...)...)
}

func (f *fixture) mustRun(want int, args ...string) result {
	f.t.Helper()
	r := f.run(args...)
	if r.code != want {
		f.t.Fatalf("eggo %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), r.code, want, r.out, r.err)
	}
	assertNoSecret(f.t, r)
	return r
}

// rootFiles lists what is under the temp root, as "rel" for files and
// "rel/" for directories.
func (f *fixture) rootFiles() []string {
	f.t.Helper()
	var out []string
	err := filepath.Walk(f.root, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(f.root, p)
		if rel == "." {
			return nil
		}
		if info.IsDir() {
			rel += "/"
		}
		out = append(out, rel)
		return nil
	})
	if err != nil {
		f.t.Fatal(err)
	}
	return out
}

func assertNoSecret(t *testing.T, r result) {
	t.Helper()
	if strings.Contains(r.all(), passwordValue) {
		t.Fatalf("the password's value was printed:\n%s", r.all())
	}
}

func mustContain(t *testing.T, what, got string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(got, w) {
			t.Errorf("%s does not contain %q:\n%s", what, w, got)
		}
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// newAgeIdentity makes an age identity and writes it to a 0600 file, as
// -identity reads it.
func newAgeIdentity(t *testing.T) (*age.X25519Identity, string) {
	t.Helper()
	id, err := age.GenerateX25519Identity()
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "id.age")
	if err := os.WriteFile(file, []byte(id.String()+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return id, file
}
