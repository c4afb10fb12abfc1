package state

import (
	"fmt"
	"testing"

	"filippo.io/age"
)

// secretState3k is a 3000-resource state where every resource holds a
// 250-byte key, as a 1000-node cluster's certificates do.
func secretState3k() *State {
	s := bigState(3000)
	for i := range s.Resources {
		r := &s.Resources[i]
		r.Attributes["key_pem"] = fmt.Sprintf("-----BEGIN EC PRIVATE KEY-----\n%0220d\n-----END EC PRIVATE KEY-----\n", i)
		r.Sensitive = []string{"key_pem"}
	}
	return s
}

func benchKeyring(b *testing.B) *Keyring {
	a, _ := age.GenerateX25519Identity()
	c, _ := age.GenerateX25519Identity()
	k, err := NewKeyring([]string{a.Recipient().String(), c.Recipient().String()}, []age.Identity{a})
	if err != nil {
		b.Fatal(err)
	}
	return k
}

// The first write of a run seals every secret (two key agreements each).
func BenchmarkSealColdWrite3k(b *testing.B) {
	s := secretState3k()
	for b.Loop() {
		b.StopTimer()
		k := benchKeyring(b)
		b.StartTimer()
		if _, err := MarshalWith(s, k); err != nil {
			b.Fatal(err)
		}
	}
}

// Every later write of the run reuses the ciphertexts of unchanged values.
func BenchmarkSealWarmWrite3k(b *testing.B) {
	s := secretState3k()
	k := benchKeyring(b)
	if _, err := MarshalWith(s, k); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := MarshalWith(s, k); err != nil {
			b.Fatal(err)
		}
	}
}

// Reading opens every sealed value with the identity.
func BenchmarkOpenRead3k(b *testing.B) {
	k := benchKeyring(b)
	data, err := MarshalWith(secretState3k(), k)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := DecodeWith(data, "bench", k); err != nil {
			b.Fatal(err)
		}
	}
}
