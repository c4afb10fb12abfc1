package ssh

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/eggo-project/eggo/internal/harness/sshdtest"
)

func TestFormatParseAndFingerprintAgreeWithOpenSSH(t *testing.T) {
	s := sshdtest.Start(t, sshdtest.Options{ExtraHostKeys: []string{"rsa", "ecdsa"}})
	for _, key := range s.HostPublicKeys() {
		line := FormatHostKey(key)
		if !strings.HasPrefix(line, key.Type()+" AAAA") || strings.ContainsAny(line, "\n") || strings.Count(line, " ") != 1 {
			t.Errorf("FormatHostKey = %q, want \"TYPE BASE64\" on one line", line)
		}
		back, err := ParseHostKey(line)
		if err != nil || !sameKey(back, key) {
			t.Fatalf("ParseHostKey(FormatHostKey(k)) = %v, %v", back, err)
		}
		// ssh-keygen -l prints "BITS SHA256:… COMMENT (TYPE)".
		file := filepath.Join(t.TempDir(), "key.pub")
		if err := os.WriteFile(file, []byte(line+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command("ssh-keygen", "-l", "-f", file).Output()
		if err != nil {
			t.Fatalf("ssh-keygen -l: %v", err)
		}
		fp := Fingerprint(key)
		if !strings.HasPrefix(fp, key.Type()+" SHA256:") || !strings.Contains(string(out), strings.Fields(fp)[1]+" ") {
			t.Errorf("Fingerprint = %q, ssh-keygen says %q", fp, out)
		}
	}
}

func TestParseHostKeyRefusesWhatIsNotOneKey(t *testing.T) {
	s := sshdtest.Start(t, sshdtest.Options{})
	line := FormatHostKey(s.HostPublicKey())
	if k, err := ParseHostKey(line + " root@host"); err != nil || !sameKey(k, s.HostPublicKey()) {
		t.Errorf("a trailing comment was refused: %v", err)
	}
	for _, bad := range []string{
		"",
		"ssh-ed25519",
		"ssh-ed25519 not-base64!",
		`from="10.0.0.1" ` + line,
		line + "\n" + line,
	} {
		if _, err := ParseHostKey(bad); err == nil {
			t.Errorf("ParseHostKey(%q) succeeded", bad)
		}
	}
}
