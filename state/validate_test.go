package state

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"
)

// A record eggo would not have written is refused when the file is read,
// naming the resource and what is wrong, and the file is left as it is.
func TestCraftedRecordsRefused(t *testing.T) {
	const head = `{"format_version": 4, "lineage": "l", `
	const hostKey = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl"
	tests := []struct {
		name, content string
		want          string
	}{
		{"wrong kind", head + `"resources": [{"address": "host.w0", "kind": "cert", "attributes": {}}]}`,
			`host.w0 is recorded as kind "cert", but its address is of kind "host"`},
		{"no kind in the address", head + `"resources": [{"address": "w0", "kind": "host", "attributes": {}}]}`,
			`the address "w0" is not KIND.NAME`},
		{"bad address", head + `"resources": [{"address": "host.w0/../x", "kind": "host", "attributes": {}}]}`,
			`the address "host.w0/../x" is not KIND.NAME`},
		{"bad key", head + `"resources": [{"address": "service.kubelet[w0]", "kind": "service", "attributes": {}}]}`,
			`the address "service.kubelet[w0]" has a malformed key`},
		{"null attributes", head + `"resources": [{"address": "host.w0", "attributes": null, "kind": "host"}]}`,
			"resource host.w0: attributes is null"},
		{"malformed host key", head + `"host_keys": {"w0": "ssh-ed25519 not-base64"}, "resources": []}`,
			"host_keys.w0 is not an SSH public key"},
		{"host key with options", head + `"host_keys": {"w0": "command=\"sh\" ` + hostKey + `"}, "resources": []}`,
			"host_keys.w0 is not one SSH public key"},
		{"host key of no node", head + `"host_keys": {"../w0": "` + hostKey + `"}, "resources": []}`,
			`host_keys: "../w0" is not a node's name`},
		{"malformed recipient", head + `"recipients": ["age1notakey"], "resources": []}`,
			"recipients[0] is not a recipient"},
		{"private key as recipient", head + `"recipients": ["AGE-SECRET-KEY-1QQQ"], "resources": []}`,
			"recipients[0] is not a recipient: this is a private key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeFile(t, t.TempDir(), "eggo.state", tt.content)
			_, err := Read(path)
			var corrupt *CorruptError
			if !errors.As(err, &corrupt) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want a CorruptError saying %q", err, tt.want)
			}
			if strings.Contains(err.Error(), "QQQ") {
				t.Error("the error quotes a private key")
			}
			if after, _ := os.ReadFile(path); string(after) != tt.content {
				t.Error("reading the file changed it")
			}
		})
	}
}

// The writer refuses what the reader would: a record whose kind is not
// its address's.
func TestWriteRefusesAKindNotItsAddress(t *testing.T) {
	s := New()
	s.Set(Resource{Address: "host.w0", Kind: "cert"})
	if err := NewStore(t.TempDir() + "/eggo.state").Write(s); err == nil || !strings.Contains(err.Error(), "its address is of kind \"host\"") {
		t.Fatalf("write of a mismatched kind: %v", err)
	}
}

// A sensitive value moved out of "sealed" into plain attributes, in a
// state whose secrets are sealed, is refused at read, naming the
// resource and attribute: read as it is, it would be taken as the secret
// and sealed in.
func TestPlainValueInASealedStateRefused(t *testing.T) {
	alice := ageOperator(t)
	path, data := writeSealed(t, keyring(t, []operator{alice}), secretState())
	file, err := Decode(data, path)
	if err != nil {
		t.Fatal(err)
	}
	moved := file.Copy()
	ca := &moved.Resources[indexOf(moved, "pki.cluster_ca")]
	delete(ca.Sealed, "key_pem")
	ca.Attributes["key_pem"] = "a CA key the writer holds"
	output := file.Copy()
	delete(output.SealedOutputs, "admin_token")
	output.Outputs["admin_token"] = "a token the writer holds"
	for name, c := range map[string]struct {
		s    *State
		want string
	}{
		"attribute": {moved, `resource pki.cluster_ca: its sensitive attribute "key_pem" is in plain text in a state whose secrets are sealed`},
		"output":    {output, `output "admin_token" is sensitive and in plain text in a state whose secrets are sealed`},
	} {
		t.Run(name, func(t *testing.T) {
			content := Encode(c.s)
			if err := os.WriteFile(path, content, 0o600); err != nil {
				t.Fatal(err)
			}
			for _, k := range []*Keyring{nil, keyring(t, []operator{alice}, alice)} {
				st := NewStore(path)
				st.SetKeyring(k)
				if _, err := st.Read(); err == nil || !strings.Contains(err.Error(), c.want) {
					t.Errorf("read: %v, want %q", err, c.want)
				}
			}
			if after, _ := os.ReadFile(path); !bytes.Equal(after, content) {
				t.Error("the refused read changed the file")
			}
		})
	}
}
