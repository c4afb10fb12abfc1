package sshdtest

import (
	"os"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
)

func TestStartAcceptsKeyAndStopLeavesNoProcess(t *testing.T) {
	keyFile, pub := GenerateUserKey(t)
	s := Start(t, Options{AuthorizedKeys: []ssh.PublicKey{pub}})
	signer := loadSigner(t, keyFile)
	client, err := ssh.Dial("tcp", s.Addr, &ssh.ClientConfig{
		User:            "root",
		Auth:            []ssh.AuthMethod{ssh.PublicKeys(signer)},
		HostKeyCallback: ssh.FixedHostKey(s.HostPublicKey()),
	})
	if err != nil {
		t.Fatalf("dial %s: %v\nsshd log:\n%s", s.Addr, err, s.Log())
	}
	defer client.Close()
	sess, err := client.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	// A long command still running when the server stops must die with it.
	if err := sess.Start("echo $$ > " + s.Dir + "/sleeper.pid; exec sleep 300"); err != nil {
		t.Fatal(err)
	}
	pid := waitPidFile(t, s.Dir+"/sleeper.pid")
	sshdPid := s.cmd.Process.Pid
	s.Stop()
	for _, p := range []int{pid, sshdPid} {
		if Running(p) {
			t.Errorf("process %d survived Stop", p)
		}
	}
}

func TestKnownHostsLineMatchesServer(t *testing.T) {
	s := Start(t, Options{})
	line := s.KnownHostsLine()
	if !strings.HasPrefix(line, "[127.0.0.1]:") || !strings.Contains(line, "ssh-ed25519 ") {
		t.Fatalf("unexpected known_hosts line %q", line)
	}
	_, hosts, key, _, _, err := ssh.ParseKnownHosts([]byte(line))
	if err != nil {
		t.Fatal(err)
	}
	if string(key.Marshal()) != string(s.HostPublicKey().Marshal()) {
		t.Fatal("known_hosts key differs from the server's host key")
	}
	if want := s.Addr; hosts[0] != "["+strings.Replace(want, ":", "]:", 1) {
		t.Fatalf("host pattern %q does not name %s", hosts[0], want)
	}
}

func TestPasswordLoginForAddedUser(t *testing.T) {
	u := AddUser(t, false)
	s := Start(t, Options{Password: true, Users: []string{u.Name}})
	client, err := ssh.Dial("tcp", s.Addr, &ssh.ClientConfig{
		User:            u.Name,
		Auth:            []ssh.AuthMethod{ssh.Password(u.Password)},
		HostKeyCallback: ssh.FixedHostKey(s.HostPublicKey()),
	})
	if err != nil {
		t.Fatalf("password login: %v\nsshd log:\n%s", err, s.Log())
	}
	defer client.Close()
	sess, _ := client.NewSession()
	out, err := sess.Output("id -un")
	if err != nil || strings.TrimSpace(string(out)) != u.Name {
		t.Fatalf("id -un = %q, %v", out, err)
	}
	_, err = ssh.Dial("tcp", s.Addr, &ssh.ClientConfig{
		User:            u.Name,
		Auth:            []ssh.AuthMethod{ssh.Password("wrong")},
		HostKeyCallback: ssh.FixedHostKey(s.HostPublicKey()),
	})
	if err == nil {
		t.Fatal("a wrong password logged in")
	}
}

func loadSigner(t *testing.T, path string) ssh.Signer {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s, err := ssh.ParsePrivateKey(b)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func waitPidFile(t *testing.T, path string) int {
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		b, err := os.ReadFile(path)
		if err == nil && strings.HasSuffix(string(b), "\n") {
			var pid int
			for _, c := range strings.TrimSpace(string(b)) {
				pid = pid*10 + int(c-'0')
			}
			return pid
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("%s never written", path)
	return 0
}

func TestStopKillsCommandsOrphanedByAClosedConnection(t *testing.T) {
	keyFile, pub := GenerateUserKey(t)
	s := Start(t, Options{AuthorizedKeys: []ssh.PublicKey{pub}})
	client, err := ssh.Dial("tcp", s.Addr, &ssh.ClientConfig{
		User:            "root",
		Auth:            []ssh.AuthMethod{ssh.PublicKeys(loadSigner(t, keyFile))},
		HostKeyCallback: ssh.FixedHostKey(s.HostPublicKey()),
	})
	if err != nil {
		t.Fatal(err)
	}
	sess, _ := client.NewSession()
	if err := sess.Start("(echo $$ > " + s.Dir + "/orphan.pid; exec sleep 300) & sleep 300"); err != nil {
		t.Fatal(err)
	}
	pid := waitPidFile(t, s.Dir+"/orphan.pid")
	client.Close() // sshd's connection process ends; the sleeps live on
	time.Sleep(200 * time.Millisecond)
	if !Running(pid) {
		t.Fatal("the command died with its connection; this test proves nothing")
	}
	s.Stop()
	if Running(pid) {
		t.Fatalf("orphaned command %d survived Stop", pid)
	}
}
