package nspawntest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
)

// record is what a testbed has created or is about to create. It is written
// before each resource is made, so a process that dies midway leaves enough
// behind for DownAll.
type record struct {
	ID         string `json:"id"`
	Dir        string `json:"dir"`
	Subnet     string `json:"subnet"`
	Bridge     string `json:"bridge"`
	Rootfs     string `json:"rootfs"`
	Containers bool   `json:"containers"`
	// ReadOnlyBinds: node path → host directory (Options.ReadOnlyBinds),
	// kept so a node booted again sees them too.
	ReadOnlyBinds map[string]string `json:"read_only_binds,omitempty"`
	Nodes         []nodeRecord      `json:"nodes"`
	// More are the networks after the first (Subnet, Bridge), and Router
	// the namespace forwarding between them all; both empty with one
	// network.
	More   []networkRecord `json:"more_networks,omitempty"`
	Router string          `json:"router,omitempty"`
}

type networkRecord struct {
	Subnet string `json:"subnet"`
	Bridge string `json:"bridge"`
}

// networks lists every network, the first one's from Subnet and Bridge.
func (r *record) networks() []networkRecord {
	return append([]networkRecord{{Subnet: r.Subnet, Bridge: r.Bridge}}, r.More...)
}

type nodeRecord struct {
	Name    string `json:"name"`
	Address string `json:"address"`
	Netns   string `json:"netns"`
	Veth    string `json:"veth"`
	Merged  string `json:"merged"`
	Network int    `json:"network,omitempty"` // index into record.networks()
	// PID and StartTime identify the node's systemd-nspawn process; the
	// start time guards against signalling a recycled pid.
	PID       int    `json:"pid,omitempty"`
	StartTime uint64 `json:"start_time,omitempty"`
}

const recordFile = "testbed.json"

// DefaultRunRoot holds every testbed's run dir: EGGO_TESTBED_RUN when set,
// else /run/eggo-testbed.
func DefaultRunRoot() string {
	if d := os.Getenv("EGGO_TESTBED_RUN"); d != "" {
		return d
	}
	return "/run/eggo-testbed"
}

func (r *record) save() error {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	path := filepath.Join(r.Dir, recordFile)
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("testbed %s: write record: %w", r.ID, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("testbed %s: write record: %w", r.ID, err)
	}
	return nil
}

func loadRecord(dir string) (*record, error) {
	data, err := os.ReadFile(filepath.Join(dir, recordFile))
	if err != nil {
		return nil, err
	}
	r := &record{}
	if err := json.Unmarshal(data, r); err != nil {
		return nil, fmt.Errorf("testbed record %s: %w", filepath.Join(dir, recordFile), err)
	}
	return r, nil
}

func (r *record) node(name string) (*nodeRecord, error) {
	for i := range r.Nodes {
		if r.Nodes[i].Name == name {
			return &r.Nodes[i], nil
		}
	}
	return nil, fmt.Errorf("testbed %s: no node %q", r.ID, name)
}

// Open returns the testbed with the given id from runRoot ("" = default),
// for example one brought up by the CLI in another process.
func Open(runRoot, id string) (*Testbed, error) {
	if runRoot == "" {
		runRoot = DefaultRunRoot()
	}
	dir := filepath.Join(runRoot, id)
	r, err := loadRecord(dir)
	if err != nil {
		return nil, fmt.Errorf("testbed %s: %w", id, err)
	}
	return fromRecord(r), nil
}

// List returns every testbed recorded under runRoot ("" = default), by id.
func List(runRoot string) ([]*Testbed, error) {
	if runRoot == "" {
		runRoot = DefaultRunRoot()
	}
	entries, err := os.ReadDir(runRoot)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []*Testbed
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		r, err := loadRecord(filepath.Join(runRoot, e.Name()))
		if err != nil {
			continue // a run dir whose record was never written; DownAll sweeps it
		}
		out = append(out, fromRecord(r))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

func fromRecord(r *record) *Testbed {
	tb := &Testbed{ID: r.ID, Dir: r.Dir, rec: r}
	nets := r.networks()
	for _, n := range r.Nodes {
		subnet := ""
		if n.Network >= 0 && n.Network < len(nets) {
			subnet = nets[n.Network].Subnet
		}
		tb.Hosts = append(tb.Hosts, Host{
			Name: n.Name, Address: n.Address, User: "root", Port: 22,
			KeyFile: tb.keyFile(), KnownHostsFile: tb.knownHostsFile(),
			Network: n.Network, Subnet: subnet,
		})
	}
	return tb
}
