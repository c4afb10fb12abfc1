package resources

import (
	"path/filepath"
	"testing"
)

// State must read the same on every operator's machine: key paths under
// the operator's home are stored as ~/…, and expanded again on use.
func TestConnectionPathsArePortable(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	key := filepath.Join(home, ".ssh", "id_ed25519")
	n := Node{Name: "m0", Address: "10.0.0.1", Connection: Connection{User: "root", PrivateKeyFile: key,
		KnownHostsFile: filepath.Join(home, ".ssh", "known_hosts"), Bastion: &Bastion{Host: "jump", PrivateKeyFile: key}}}
	a := ConnectionAttrs(n)
	if a["private_key_file"] != "~/.ssh/id_ed25519" || a["known_hosts_file"] != "~/.ssh/known_hosts" {
		t.Fatalf("stored paths = %v, %v", a["private_key_file"], a["known_hosts_file"])
	}
	other := t.TempDir() // another operator's home
	t.Setenv("HOME", other)
	tg, err := TargetFromAttrs("m0", Attrs(viaJSON(Attrs{"address": "10.0.0.1", "connection": a}).(map[string]any)))
	if err != nil {
		t.Fatal(err)
	}
	if tg.PrivateKeyFile != filepath.Join(other, ".ssh", "id_ed25519") || tg.Bastion == nil || tg.Bastion.PrivateKeyFile != filepath.Join(other, ".ssh", "id_ed25519") {
		t.Fatalf("expanded = %q (bastion %+v)", tg.PrivateKeyFile, tg.Bastion)
	}
	if got := ConnectionAttrs(Node{Connection: Connection{PrivateKeyFile: "/etc/eggo/key"}})["private_key_file"]; got != "/etc/eggo/key" {
		t.Fatalf("path outside home changed: %v", got)
	}
}
