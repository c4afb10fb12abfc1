package nspawntest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Inventory is the JSON form of a testbed for tools and other processes.
type Inventory struct {
	ID     string `json:"id"`
	Subnet string `json:"subnet"` // the first network's
	Hosts  []Host `json:"hosts"`  // each with its network's index and subnet
	// Networks are all of them, indexed by Host.Network.
	Networks []Network `json:"networks"`
}

// WriteInventory writes the hosts as JSON to path and, next to it, an HCL
// variables file eggo can load (path with its extension replaced by
// ".eggovars"). It returns the HCL file's path.
func (tb *Testbed) WriteInventory(path string) (hclPath string, err error) {
	data, err := json.MarshalIndent(Inventory{ID: tb.ID, Subnet: tb.Subnet(), Hosts: tb.Hosts, Networks: tb.Networks()}, "", "  ")
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(path, append(data, '\n'), 0o644); err != nil {
		return "", fmt.Errorf("inventory %s: %w", path, err)
	}
	hclPath = strings.TrimSuffix(path, filepath.Ext(path)) + ".eggovars"
	if err := os.WriteFile(hclPath, tb.InventoryHCL(), 0o644); err != nil {
		return "", fmt.Errorf("inventory %s: %w", hclPath, err)
	}
	return hclPath, nil
}

// InventoryHCL renders the testbed as HCL variable assignments, e.g.
//
//	nodes = {
//	  m0 = "10.77.0.11"
//	}
//	ssh_private_key_file = "/run/eggo-testbed/demo/id_ed25519"
func (tb *Testbed) InventoryHCL() []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "# eggo testbed %s (%s); generated, do not edit\n", tb.ID, tb.Subnet())
	fmt.Fprintf(&b, "testbed_id = %q\n", tb.ID)
	b.WriteString("nodes = {\n")
	width := 0
	for _, h := range tb.Hosts {
		width = max(width, len(h.Name))
	}
	for _, h := range tb.Hosts {
		// Node names are hostname labels, which may hold '-': quote keys
		// so HCL never reads them as expressions.
		fmt.Fprintf(&b, "  %-*s = %q\n", width+2, fmt.Sprintf("%q", h.Name), h.Address)
	}
	b.WriteString("}\n")
	if len(tb.Hosts) > 0 {
		h := tb.Hosts[0]
		fmt.Fprintf(&b, "ssh_user             = %q\n", h.User)
		fmt.Fprintf(&b, "ssh_port             = %d\n", h.Port)
		fmt.Fprintf(&b, "ssh_private_key_file = %q\n", h.KeyFile)
		fmt.Fprintf(&b, "ssh_known_hosts_file = %q\n", h.KnownHostsFile)
	}
	return []byte(b.String())
}
