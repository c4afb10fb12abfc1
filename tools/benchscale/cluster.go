package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"

	"filippo.io/age"

	"github.com/eggo-project/eggo/resources"
	"github.com/eggo-project/eggo/state"
)

// mainHCL is what an operator of a large cluster writes: three masters,
// and workers from an inventory exported as CSV (one row per machine), so
// the HCL does not grow with the cluster.
const mainHCL = `# A cluster of %[1]d workers behind three masters (make bench-scale).
cluster "scale" {
  kubernetes_version = "1.31.4"
  packages           = "./packages"
  labels             = { purpose = "bench-scale" }
  network {
    service_cidr = "10.96.0.0/16"
    pod_cidr     = "100.64.0.0/10" # 16384 node subnets of /24
  }
  addons {
    coredns = true
  }
}

connection {
  user             = "root"
  private_key_file = "id_ed25519" # a stand-in: plan -refresh=false reaches no host, but checks the file is there
  known_hosts_file = "/nonexistent/known_hosts"
}

locals {
  masters = { m0 = "10.0.0.10", m1 = "10.0.0.11", m2 = "10.0.0.12" }
  workers = csvdecode(file("workers.csv"))
}

node "master" {
  for_each = local.masters
  address  = each.value
  roles    = ["master", "etcd"]
}

node "worker" {
  for_each   = { for w in local.workers : w.name => w }
  address    = each.value.address
  roles      = ["worker"]
  labels     = { rack = each.value.rack }
  depends_on = [node.master]
}

output "workers" {
  value = length(local.workers)
}
`

// secretsHCL names the recipient of a sealed cluster's secrets.
const secretsHCL = `
secrets {
  recipients = [%q]
}
`

// writeIdentity writes a fresh age identity to dir/identity.txt and its
// recipient to dir/secrets.hcl when sealed, and removes both otherwise;
// it returns the keyring that seals to it (nil: none).
func writeIdentity(dir string, sealed bool) (*state.Keyring, error) {
	idPath, hclPath := filepath.Join(dir, "identity.txt"), filepath.Join(dir, "secrets.hcl")
	if !sealed {
		for _, p := range []string{idPath, hclPath} {
			if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
				return nil, err
			}
		}
		return nil, nil
	}
	id, err := age.GenerateX25519Identity()
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(idPath, []byte(id.String()+"\n"), 0o600); err != nil {
		return nil, err
	}
	recipient := id.Recipient().String()
	if err := os.WriteFile(hclPath, fmt.Appendf(nil, secretsHCL, recipient), 0o644); err != nil {
		return nil, err
	}
	return state.NewKeyring([]string{recipient}, []age.Identity{id})
}

// identityOf is the identity file eggo needs in dir ("" when the cluster
// has no secrets block).
func identityOf(dir string) string {
	p := filepath.Join(dir, "identity.txt")
	if _, err := os.Stat(p); err != nil {
		return ""
	}
	return p
}

// writeCluster writes dir/main.hcl, dir/workers.csv for workers workers,
// and the stand-in key file main.hcl names.
func writeCluster(dir string, workers int) error {
	if err := os.WriteFile(filepath.Join(dir, "main.hcl"), fmt.Appendf(nil, mainHCL, workers), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "id_ed25519"), []byte("a stand-in: never read\n"), 0o600); err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(dir, "workers.csv"))
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	fmt.Fprintln(w, "name,address,rack")
	for i := 0; i < workers; i++ {
		// 172.16.0.0/12: 250 hosts a /24, a rack each.
		fmt.Fprintf(w, "w%05d,172.%d.%d.%d,r%03d\n", i, 16+i/(250*256), (i/250)%256, i%250+1, i/250)
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// writeBundle writes a stand-in package bundle: every file a complete
// bundle holds (resources.RequiredBundleFiles), each a few bytes naming
// itself, under dir/packages/amd64.
func writeBundle(dir string) error {
	for _, rel := range resources.RequiredBundleFiles() {
		p := filepath.Join(dir, "packages", "amd64", filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte("stand-in "+rel+"\n"), 0o755); err != nil {
			return err
		}
	}
	return nil
}
