package config

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/eggo-project/eggo/resources"
)

const oneNode = `
node "m0" {
  address = "10.0.0.1"
  roles   = ["master", "etcd"]
}
`

func TestClusterDefaults(t *testing.T) {
	dir := writeDir(t, map[string]string{"main.hcl": minimal + oneNode})
	c := mustLoad(t, dir, VarInput{}).Cluster
	want := resources.Network{ServiceCIDR: "10.32.0.0/16", PodCIDR: "10.244.0.0/16", DNSDomain: "cluster.local"}
	if c.Network != want {
		t.Errorf("network = %+v", c.Network)
	}
	if c.Certificates.Validity != 8760*time.Hour || c.Certificates.CAValidity != 87600*time.Hour ||
		c.Certificates.RenewBefore != 720*time.Hour {
		t.Errorf("certificates = %+v", c.Certificates)
	}
	if c.ConfigDir != "/etc/kubernetes" || c.Packages != "" || c.APIEndpoint != "" || c.Name != "demo" {
		t.Errorf("cluster = %+v", c)
	}
}

func TestClusterAttributes(t *testing.T) {
	dir := writeDir(t, map[string]string{"main.hcl": `
cluster "prod" {
  kubernetes_version = "1.31.14"
  packages           = "bundle/../packages"
  config_dir         = "/opt/k8s"
  labels             = { location = "xa" }
  annotations        = { "example.com/owner" = "ops" }
  network {
    service_cidr = "fd00:32::/108"
    pod_cidr     = "fd00:244::/56"
    dns_domain   = "k8s.example"
  }
  certificates {
    validity     = "48h"
    ca_validity  = "96h"
    renew_before = "12h"
    extra_sans   = ["10.0.0.100", "*.api.example.com"]
  }
}
node "m0" {
  address = "fd00::1"
  roles   = ["master", "etcd"]
}
`})
	c := mustLoad(t, dir, VarInput{}).Cluster
	if c.Packages != filepath.Join(dir, "packages") || c.ConfigDir != "/opt/k8s" {
		t.Errorf("paths: packages=%q config_dir=%q", c.Packages, c.ConfigDir)
	}
	if c.Network.ServiceCIDR != "fd00:32::/108" || c.Network.DNSDomain != "k8s.example" {
		t.Errorf("network = %+v", c.Network)
	}
	if c.Certificates.Validity != 48*time.Hour || c.Certificates.RenewBefore != 12*time.Hour ||
		!reflect.DeepEqual(c.Certificates.ExtraSANs, []string{"10.0.0.100", "*.api.example.com"}) {
		t.Errorf("certificates = %+v", c.Certificates)
	}
	if c.Labels["location"] != "xa" || c.Annotations["example.com/owner"] != "ops" {
		t.Errorf("labels %v annotations %v", c.Labels, c.Annotations)
	}
}

func TestConnection(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	dir := writeDir(t, map[string]string{"main.hcl": minimal + `
connection {
  user             = "ops"
  port             = 2222
  private_key_file = "~/.ssh/id_ed25519"
  known_hosts_file = "pinned_hosts"
  sudo             = true
  timeout          = "30s"
  retries          = 5
  bastion {
    host = "jump.example.com"
  }
}
node "plain" {
  address = "10.0.0.1"
  roles   = ["master", "etcd"]
}
node "custom" {
  address = "10.0.0.2"
  roles   = ["worker"]
  connection {
    user         = "root"
    sudo         = false
    password_env = "CUSTOM_PASSWORD"
    agent        = true
    bastion {
      port = 2200
      user = "jumper"
    }
  }
}
node "local" {
  address = "127.0.0.1"
  roles   = ["worker"]
  connection {
    type = "local"
  }
}
`})
	nodes := mustLoad(t, dir, VarInput{}).Cluster.Nodes
	key := filepath.Join(home, ".ssh", "id_ed25519")
	plain := resources.Connection{
		Type: "ssh", User: "ops", Port: 2222, PrivateKeyFile: key,
		KnownHostsFile: filepath.Join(dir, "pinned_hosts"), Sudo: true, Timeout: 30 * time.Second, Retries: 5,
		// the bastion takes the connection's user and key unless it sets its own
		Bastion: &resources.Bastion{Host: "jump.example.com", Port: 22, User: "ops", PrivateKeyFile: key},
	}
	if !reflect.DeepEqual(nodes[0].Connection, plain) {
		t.Errorf("plain connection =\n%+v %+v\nwant\n%+v %+v", nodes[0].Connection, nodes[0].Connection.Bastion, plain, plain.Bastion)
	}
	custom := plain
	custom.User, custom.Sudo, custom.PasswordEnv, custom.Agent = "root", false, "CUSTOM_PASSWORD", true
	custom.Bastion = &resources.Bastion{Host: "jump.example.com", Port: 2200, User: "jumper", PrivateKeyFile: key}
	if !reflect.DeepEqual(nodes[1].Connection, custom) {
		t.Errorf("custom connection =\n%+v %+v\nwant\n%+v %+v", nodes[1].Connection, nodes[1].Connection.Bastion, custom, custom.Bastion)
	}
	if nodes[2].Connection.Type != "local" || nodes[2].Connection.User != "ops" {
		t.Errorf("local connection = %+v", nodes[2].Connection)
	}
}

// TestConnectionRetriesZero: retries = 0 is one attempt. providers/ssh
// reads a Target's Retries of 0 as its default (3) and a negative count as
// none, so the model carries 0 as -1, also through the state's attributes.
func TestConnectionRetriesZero(t *testing.T) {
	dir := writeDir(t, map[string]string{"main.hcl": minimal + `
connection {
  retries = 0
}
node "a" {
  address = "10.0.0.1"
  roles   = ["master", "etcd"]
}
node "b" {
  address = "10.0.0.2"
  roles   = ["worker"]
  connection {
    retries = 2
    bastion {
      host = "jump.example.com"
    }
  }
}
node "c" {
  address = "10.0.0.3"
  roles   = ["worker"]
  connection {
    retries = 0
    bastion {
      host = "jump.example.com"
    }
  }
}
`})
	nodes := mustLoad(t, dir, VarInput{}).Cluster.Nodes
	for i, want := range []int{-1, 2, -1} {
		n := nodes[i]
		tg := resources.TargetFor(n)
		if n.Connection.Retries != want || tg.Retries != want {
			t.Errorf("%s: Retries = %d, target %d; want %d", n.Name, n.Connection.Retries, tg.Retries, want)
		}
		if tg.Bastion != nil && tg.Bastion.Retries != want {
			t.Errorf("%s: bastion Retries = %d; want %d", n.Name, tg.Bastion.Retries, want)
		}
		back, err := resources.TargetFromAttrs(n.Name, resources.Attrs{"connection": resources.ConnectionAttrs(n), "address": n.Address})
		if err != nil || back.Retries != want {
			t.Errorf("%s: Retries from state = %d (%v); want %d", n.Name, back.Retries, err, want)
		}
	}
}

func TestConnectionDefaults(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	nodes := mustLoad(t, writeDir(t, map[string]string{"main.hcl": minimal + oneNode}), VarInput{}).Cluster.Nodes
	want := resources.Connection{Type: "ssh", User: "root", Port: 22, Timeout: 10 * time.Second, Retries: 3,
		KnownHostsFile: filepath.Join(home, ".ssh", "known_hosts")}
	if !reflect.DeepEqual(nodes[0].Connection, want) {
		t.Fatalf("connection = %+v, want %+v", nodes[0].Connection, want)
	}
}

func TestLocals(t *testing.T) {
	cfg := mustLoad(t, writeDir(t, map[string]string{
		"a.hcl": minimal + `
locals {
  # refers to a local declared later, in another file
  endpoint = "${local.lb}:${local.port}"
}
node "lb" {
  address = local.lb
  roles   = ["loadbalance"]
}
node "m" {
  address = "10.9.1.1"
  roles   = ["master", "etcd"]
}
output "endpoint" {
  value = local.endpoint
}
`,
		"b.hcl": `
locals {
  lb   = cidrhost(var.subnet, 5)
  port = 6443
}
variable "subnet" {
  default = "10.9.0.0/24"
}
`}), VarInput{})
	if got := cfg.Outputs[0].Value.AsString(); got != "10.9.0.5:6443" {
		t.Fatalf("endpoint = %q", got)
	}
	if cfg.Cluster.Nodes[0].Address != "10.9.0.5" {
		t.Fatalf("lb address = %q", cfg.Cluster.Nodes[0].Address)
	}
}

func TestNoFilesNamesDirectory(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "README.md"), []byte("not hcl"), 0o644)
	_, diags := loadErrors(t, dir, VarInput{})
	if len(diags) != 1 || diags[0].Summary != "No configuration files" || !strings.Contains(diags[0].Detail, dir) {
		t.Fatalf("diags = %v", diags)
	}
	_, diags = loadErrors(t, filepath.Join(dir, "missing"), VarInput{})
	if !strings.Contains(diags[0].Detail, filepath.Join(dir, "missing")) {
		t.Fatalf("diags = %v", diags)
	}
}

// Every testdata/valid directory loads; they also seed FuzzLoad.
func TestValidTestdata(t *testing.T) {
	dirs, _ := filepath.Glob("testdata/valid/*")
	if len(dirs) < 3 {
		t.Fatalf("valid testdata missing: %v", dirs)
	}
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			cfg := mustLoad(t, dir, VarInput{})
			if len(cfg.Cluster.Nodes) == 0 {
				t.Fatal("no nodes")
			}
		})
	}
}
