package config

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"strconv"
	"strings"
	"testing"

	gossh "golang.org/x/crypto/ssh"

	"github.com/eggo-project/eggo/resources"
)

// testHostKey is a fresh ed25519 public key in authorized_keys form.
func testHostKey(t *testing.T) string {
	t.Helper()
	pub, _, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	k, err := gossh.NewPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	return resources.FormatHostKey(k)
}

// host_key is read from the top-level connection, a node's own and a
// bastion's, without its comment; a bastion never takes a node's, nor
// another bastion host's.
func TestHostKey(t *testing.T) {
	top, own, jump := testHostKey(t), testHostKey(t), testHostKey(t)
	dir := writeDir(t, map[string]string{"main.hcl": minimal + `
connection {
  host_key = "` + top + ` root@top"
  bastion {
    host     = "jump.example.com"
    host_key = "` + jump + `"
  }
}
node "plain" {
  address = "10.0.0.1"
  roles   = ["master", "etcd"]
}
node "own" {
  address = "10.0.0.2"
  roles   = ["worker"]
  connection {
    host_key = "  ` + own + `  "
    bastion {
      host = "other-jump.example.com"
    }
  }
}
node "same-jump" {
  address = "10.0.0.3"
  roles   = ["worker"]
  connection {
    bastion {
      host = "jump.example.com"
      port = 2200
    }
  }
}
`})
	nodes := mustLoad(t, dir, VarInput{}).Cluster.Nodes
	for i, want := range []struct{ node, bastion string }{{top, jump}, {own, ""}, {top, jump}} {
		n := nodes[i]
		if n.Connection.HostKey != want.node || n.Connection.Bastion.HostKey != want.bastion {
			t.Errorf("%s: host_key %q, bastion's %q; want %q, %q", n.Name, n.Connection.HostKey, n.Connection.Bastion.HostKey, want.node, want.bastion)
		}
		// It reaches the transport, from the configuration and from the
		// state's records alike.
		tg := resources.TargetFor(n)
		back, err := resources.TargetFromAttrs(n.Name, resources.Attrs{"connection": resources.ConnectionAttrs(n), "address": n.Address})
		if err != nil {
			t.Fatal(err)
		}
		if tg.HostKey != want.node || back.HostKey != want.node || tg.Bastion.HostKey != want.bastion || back.Bastion.HostKey != want.bastion {
			t.Errorf("%s: target %+v, from state %+v", n.Name, tg, back)
		}
		if err := resources.CheckTargetAttrs(resources.Attrs{"connection": resources.ConnectionAttrs(n)}); err != nil {
			t.Errorf("%s: record refused: %v", n.Name, err)
		}
	}
	// Unset, it is not recorded at all: records written before host_key
	// existed are no change.
	plain := mustLoad(t, writeDir(t, map[string]string{"main.hcl": minimal + oneNode}), VarInput{}).Cluster.Nodes[0]
	if _, ok := resources.ConnectionAttrs(plain)["host_key"]; ok {
		t.Errorf("an unset host_key is recorded: %v", resources.ConnectionAttrs(plain))
	}
}

// A host_key that is not one public key is refused at its line, saying
// what is wrong; a private key is refused without a piece of it shown.
func TestHostKeyInvalid(t *testing.T) {
	good := testHostKey(t)
	ecKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	ec, _ := gossh.NewPublicKey(&ecKey.PublicKey)
	ecData := strings.Fields(resources.FormatHostKey(ec))[1]
	privateBody := strings.Split(testSSHKey, "\n")[1]

	cases := []struct {
		name, value, summary, detail string
	}{
		{"not a key", `"10.0.0.1"`, "Invalid host_key", "it is not a public key: it does not start with a key type"},
		{"a fingerprint", `"SHA256:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU"`, "Invalid host_key", "it is not a public key"},
		{"unknown type", `"ssh-dss AAAAB3NzaC1kc3M="`, "Invalid host_key", `"ssh-dss" is not a host key type eggo accepts; the types are ssh-ed25519`},
		{"a certificate", `"ssh-ed25519-cert-v01@openssh.com AAAA"`, "Invalid host_key", "is a certificate type"},
		{"no data", `"ssh-ed25519"`, "Invalid host_key", "no key data"},
		{"not Base64", `"ssh-ed25519 AAAA!!!"`, "Invalid host_key", "is not Base64"},
		{"not a key's data", `"ssh-ed25519 AAAA"`, "Invalid host_key", "does not decode to a key"},
		{"another type's data", `"ssh-ed25519 ` + ecData + `"`, "Invalid host_key", "is a ecdsa-sha2-nistp256 key, not ssh-ed25519"},
		{"two keys", `"` + good + `\n` + good + `"`, "Invalid host_key", "exactly one key"},
		{"empty", `""`, "Invalid host_key", "it is empty"},
		{"a private key", quotedHCL(testSSHKey), "Credential not allowed here", `"host_key" holds a private key`},
		{"a private key's body", `"` + privateBody + `"`, "Credential not allowed here", `"host_key" holds a private key`},
		{"a private key file", `file("key.pem")`, "Sensitive value not allowed here", `"host_key" is computed from a sensitive value`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := writeDir(t, map[string]string{"key.pem": testSSHKey, "main.hcl": minimal + `node "m0" {
  address = "10.0.0.1"
  roles   = ["master", "etcd"]
  connection {
    host_key = ` + c.value + `
  }
}
`})
			cfg, diags := loadErrors(t, dir, VarInput{})
			wantAt(t, diags, c.summary, 9, c.detail)
			noCredentialIn(t, "the diagnostics", render(cfg, diags))
		})
	}

	// A bastion's is checked alike.
	dir := writeDir(t, map[string]string{"main.hcl": minimal + oneNode + `connection {
  bastion {
    host     = "jump.example.com"
    host_key = "ssh-ed25519"
  }
}
`})
	_, diags := loadErrors(t, dir, VarInput{})
	wantAt(t, diags, "Invalid host_key", 13, "no key data")
}

// parseHostKey quotes nothing back but a word shaped like a key type.
func TestParseHostKeyEchoesNoKeyMaterial(t *testing.T) {
	for _, s := range []string{
		"AAAAC3NzaC1lZDI1NTE5AAAAIHFHBsjFeWQ4ziUoFvd6", // data without its type
		"Ssh-Ed25519 k3yB0DY",
		strings.Repeat("x", 200) + " AAAA",
	} {
		_, why := parseHostKey(s)
		if why == "" {
			t.Fatalf("%q accepted", s)
		}
		for _, f := range strings.Fields(s) {
			if strings.Contains(why, f) || strings.Contains(why, strconv.Quote(f)) {
				t.Errorf("reason %q repeats %q", why, f)
			}
		}
	}
	key, why := parseHostKey("  " + testHostKey(t) + " a comment  ")
	if why != "" || key == nil || key.Type() != gossh.KeyAlgoED25519 {
		t.Errorf("a good key with a comment: %q", why)
	}
}
