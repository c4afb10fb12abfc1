package sshdtest

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// User is a throw-away local account for a test.
type User struct {
	Name     string
	Password string
}

// AddUser creates a local account with a random name and password for the
// length of the test (useradd; removed with userdel -r in Cleanup). With
// sudo, a NOPASSWD drop-in in /etc/sudoers.d is created and removed too.
// The account always gets a password: without PAM, sshd refuses even key
// logins to a locked ("!") account.
func AddUser(t testing.TB, sudo bool) User {
	t.Helper()
	u := User{Name: "eggo" + randomHex(t, 4), Password: randomHex(t, 12)}
	run(t, "", "useradd", "--create-home", "--shell", "/bin/sh", u.Name)
	t.Cleanup(func() {
		// Processes a test left behind would make userdel refuse.
		_ = exec.Command("pkill", "-KILL", "-u", u.Name).Run()
		_ = exec.Command("userdel", "-r", "-f", u.Name).Run()
	})
	run(t, u.Name+":"+u.Password+"\n", "chpasswd")
	if sudo {
		dropIn := filepath.Join("/etc/sudoers.d", u.Name)
		line := u.Name + " ALL=(ALL) NOPASSWD: ALL\n"
		if err := os.WriteFile(dropIn, []byte(line), 0o440); err != nil {
			t.Fatalf("sshd: write %s: %v", dropIn, err)
		}
		t.Cleanup(func() { _ = os.Remove(dropIn) })
	}
	return u
}

func run(t testing.TB, stdin string, name string, args ...string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Stdin = strings.NewReader(stdin)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("sshd: %s %s: %v: %s", name, strings.Join(args, " "), err, out)
	}
}

func randomHex(t testing.TB, n int) string {
	t.Helper()
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatalf("sshd: random: %v", err)
	}
	return hex.EncodeToString(b)
}
