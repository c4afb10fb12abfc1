package e2e_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"filippo.io/age"

	"github.com/eggo-project/eggo/internal/harness/eggotest"
	"github.com/eggo-project/eggo/internal/harness/nspawntest"
	"github.com/eggo-project/eggo/state"
)

// sealedTo are the two operators a cluster's state is sealed to in the
// e2e run: one with an age identity file, one with an SSH key.
type sealedTo struct {
	ageIdentity string // file
	sshIdentity string // private key file
}

// sealStateTo writes a secrets block naming an age recipient and the
// testbed's SSH public key, and makes every run of dir use the age
// identity (planIn picks up testIdentityFile).
func sealStateTo(t *testing.T, dir string, tb *nspawntest.Testbed) sealedTo {
	t.Helper()
	id, err := age.GenerateX25519Identity()
	if err != nil {
		t.Fatal(err)
	}
	idPath := filepath.Join(dir, testIdentityFile)
	if err := os.WriteFile(idPath, []byte(id.String()+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	sshPub, err := os.ReadFile(tb.Hosts[0].KeyFile + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	hcl := "secrets {\n  recipients = [\n    \"" + id.Recipient().String() + "\",\n    \"" + strings.TrimSpace(string(sshPub)) + "\",\n  ]\n}\n"
	if err := os.WriteFile(filepath.Join(dir, "secrets.hcl"), []byte(hcl), 0o644); err != nil {
		t.Fatal(err)
	}
	return sealedTo{ageIdentity: idPath, sshIdentity: tb.Hosts[0].KeyFile}
}

// lockedBuffer collects the runs' debug logs.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// checkNoSecretLeaks is issue 5's scan: the state file and its backup,
// the hook audit log, the runs' debug logs and the output of the real
// eggo binary (plan -destroy as text and JSON, show, state pull, hooks)
// hold no PEM private key and none of the cluster's real keys. The state
// opens with each recipient's identity and with no other.
func checkNoSecretLeaks(t *testing.T, dir string, ids sealedTo, logs *lockedBuffer) {
	t.Helper()
	statePath := filepath.Join(dir, "eggo.state")
	needles, values := secretNeedles(t, statePath, ids.ageIdentity)
	if values < 10 {
		t.Fatalf("only %d secret values in the decrypted state; the cluster's keys should be there", values)
	}

	haystacks := map[string]string{"debug logs": logs.String()}
	for _, f := range []string{"eggo.state", "eggo.state.backup", "eggo.state.hooks.log"} {
		if data, err := os.ReadFile(filepath.Join(dir, f)); err == nil {
			haystacks[f] = string(data)
		}
	}
	bin := eggotest.Binary(t)
	env := append(os.Environ(), "EGGO_IDENTITY="+ids.ageIdentity, "EGGO_LOG=debug", "NO_COLOR=1")
	for _, args := range [][]string{
		{"plan", "-destroy"}, {"plan", "-destroy", "-json"}, {"show"}, {"show", "-json"},
		{"state", "pull"}, {"state", "show", "pki.cluster_ca"}, {"hooks", "-log"},
	} {
		cmd := exec.Command(bin, append([]string{"-chdir=" + dir}, args...)...)
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Errorf("eggo %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		haystacks["eggo "+strings.Join(args, " ")] = string(out)
	}
	// Without an identity, the unchanged cluster's plan invents nothing: a
	// CI drift check run without the team's key exits 0.
	cmd := exec.Command(bin, "-chdir="+dir, "plan", "-detailed-exitcode")
	cmd.Env = append(os.Environ(), "EGGO_IDENTITY=", "NO_COLOR=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "Not compared") {
		t.Errorf("eggo plan -detailed-exitcode without an identity: %v (want exit 0, listing what it could not compare)\n%s", err, out)
	}
	haystacks["eggo plan without an identity"] = string(out)
	if !strings.Contains(haystacks["eggo plan -destroy"], "will be destroyed") {
		t.Errorf("plan -destroy printed no resources:\n%s", haystacks["eggo plan -destroy"])
	}
	for name, text := range haystacks {
		if strings.Contains(text, "PRIVATE KEY") {
			t.Errorf("%s holds a PEM private key", name)
		}
		for _, n := range needles {
			if strings.Contains(text, n) {
				t.Errorf("%s holds a piece of a real secret", name)
				break
			}
		}
	}

	// Each recipient's identity opens every sealed value; another none.
	other, _ := age.GenerateX25519Identity()
	otherPath := filepath.Join(t.TempDir(), "other.age")
	os.WriteFile(otherPath, []byte(other.String()+"\n"), 0o600)
	for _, c := range []struct {
		id     string
		opens  bool
		person string
	}{{ids.ageIdentity, true, "age identity"}, {ids.sshIdentity, true, "SSH key"}, {otherPath, false, "a non-recipient"}} {
		got, err := state.ReadIdentities(c.id)
		if err != nil {
			t.Fatal(err)
		}
		kr, _ := state.NewKeyring(nil, got)
		st, err := state.ReadWith(statePath, kr)
		if err != nil {
			t.Fatal(err)
		}
		unreadable := len(st.Unreadable())
		if c.opens && unreadable != 0 || !c.opens && unreadable < values {
			t.Errorf("%s: %d values left sealed", c.person, unreadable)
		}
	}
}

// secretNeedles returns 40-character pieces of the decrypted state's
// sensitive values to search for (the end of each PEM body line: what any
// leak of a key would contain), and how many values they come from.
func secretNeedles(t *testing.T, statePath, identity string) (needles []string, values int) {
	t.Helper()
	ids, err := state.ReadIdentities(identity)
	if err != nil {
		t.Fatal(err)
	}
	kr, _ := state.NewKeyring(nil, ids)
	st, err := state.ReadWith(statePath, kr)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range st.Resources {
		for _, name := range r.Sensitive {
			s, ok := r.Attributes[name].(string)
			if !ok {
				continue
			}
			// The last 40 characters of each full base64 line: the start
			// of a key's first line is its algorithm's header, the same
			// for every key, while these hold the key's own random bytes.
			found := false
			for _, line := range strings.Split(s, "\n") {
				if len(line) >= 60 && !strings.HasPrefix(line, "-----") {
					needles, found = append(needles, line[len(line)-40:]), true
				}
			}
			if found {
				values++
			}
		}
	}
	return needles, values
}
