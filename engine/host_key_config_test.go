package engine

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	gossh "golang.org/x/crypto/ssh"

	"github.com/eggo-project/eggo/internal/harness/sshdtest"
	"github.com/eggo-project/eggo/resources"
	"github.com/eggo-project/eggo/state"
)

func newTestHostKey(t *testing.T) gossh.PublicKey {
	t.Helper()
	pub, _, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	k, err := gossh.NewPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// A node's host_key that the state's pin contradicts is refused at plan,
// before any host is contacted, at the host_key's line, naming the node,
// both fingerprints and eggo state rekey-host; the same key, written with
// a comment, is no conflict.
func TestPlanRefusesHostKeyContradictingThePin(t *testing.T) {
	configured, pinned := newTestHostKey(t), newTestHostKey(t)
	dir := t.TempDir()
	hcl := `cluster "c" {
  kubernetes_version = "1.31.4"
}
node "n1" {
  address = "10.0.0.1"
  roles   = ["master", "etcd"]
  connection {
    host_key = "` + resources.FormatHostKey(configured) + ` root@n1"
  }
}
`
	if err := os.WriteFile(filepath.Join(dir, "main.hcl"), []byte(hcl), 0o644); err != nil {
		t.Fatal(err)
	}
	writePins := func(key gossh.PublicKey) {
		st := state.New()
		st.Serial = 1
		st.HostKeys = map[string]string{"n1": resources.FormatHostKey(key)}
		if err := state.NewStore(filepath.Join(dir, "eggo.state")).Write(st); err != nil {
			t.Fatal(err)
		}
	}

	writePins(pinned)
	_, _, err := planWith(t, Request{Dir: dir})
	var se *resources.SourceError
	if !errors.As(err, &se) || se.Summary != "Host key differs from the state's pin" || se.Range.Start.Line != 8 {
		t.Fatalf("error %v (%T), want a SourceError at host_key (line 8)", err, err)
	}
	for _, want := range []string{"n1", resources.Fingerprint(configured), resources.Fingerprint(pinned), "eggo state rekey-host n1"} {
		if !strings.Contains(se.Detail, want) {
			t.Errorf("detail %q lacks %q", se.Detail, want)
		}
	}
	if strings.Contains(se.Detail, resources.FormatHostKey(configured)) || strings.Contains(se.Detail, resources.FormatHostKey(pinned)) {
		t.Errorf("detail %q repeats a key whole", se.Detail)
	}

	writePins(configured)
	if _, _, err := planWith(t, Request{Dir: dir}); err != nil {
		t.Fatalf("the pin is the host_key: %v", err)
	}
}

// eggo state rekey-host pins only the key a node's host_key names: any
// other would have the next plan refuse the node.
func TestRekeyHostKeepsToHostKey(t *testing.T) {
	t.Setenv("SSH_AUTH_SOCK", "")
	srv := sshdtest.Start(t, sshdtest.Options{})
	ctx := context.Background()
	dir := t.TempDir()
	old := newTestHostKey(t)
	write := func(hostKey gossh.PublicKey) {
		hcl := `cluster "c" {
  kubernetes_version = "1.31.4"
}
node "n1" {
  address = "127.0.0.1"
  roles   = ["master", "etcd"]
  connection {
    port     = ` + strconv.Itoa(srv.Port) + `
    host_key = "` + resources.FormatHostKey(hostKey) + `"
  }
}
`
		if err := os.WriteFile(filepath.Join(dir, "main.hcl"), []byte(hcl), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	st := state.New()
	st.Serial = 1
	st.HostKeys = map[string]string{"n1": resources.FormatHostKey(old)}
	statePath := filepath.Join(dir, "eggo.state")
	if err := state.NewStore(statePath).Write(st); err != nil {
		t.Fatal(err)
	}
	rekey := func() (*Rekey, error) {
		ws, err := Open(ctx, Request{Dir: dir})
		if err != nil {
			t.Fatal(err)
		}
		defer ws.Close()
		if err := ws.Lock("state rekey-host"); err != nil {
			t.Fatal(err)
		}
		return ws.RekeyHost(ctx, "n1", "")
	}

	configured := newTestHostKey(t) // not the server's
	write(configured)
	if r, err := rekey(); err == nil {
		t.Fatalf("a key other than host_key pinned: %+v", r)
	} else if !strings.Contains(err.Error(), resources.Fingerprint(configured)) || !strings.Contains(err.Error(), "host_key") ||
		!strings.Contains(err.Error(), resources.Fingerprint(srv.HostPublicKey())) {
		t.Errorf("refusal %q does not name host_key and both keys", err)
	}
	if got, _ := readStateFile(statePath); got.HostKeys["n1"] != resources.FormatHostKey(old) {
		t.Fatal("a refused rekey changed the pin")
	}

	write(srv.HostPublicKey())
	if _, err := rekey(); err != nil {
		t.Fatalf("rekey to the host_key the host presents: %v", err)
	}
	if got, _ := readStateFile(statePath); got.HostKeys["n1"] != resources.FormatHostKey(srv.HostPublicKey()) {
		t.Fatalf("pin %q, want the host_key", got.HostKeys["n1"])
	}
}
