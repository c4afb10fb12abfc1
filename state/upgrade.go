package state

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
)

// upgrades[v] turns the bytes of a format-v file into format v+1. Reading a
// file of format v runs upgrades[v:] in order, so each step is written once,
// against the format just before it, and never changes afterwards.
var upgrades = []func(data []byte) ([]byte, error){
	0: upgradeV0,
	1: upgradeV1,
	2: upgradeV2,
	3: upgradeV3,
}

// upgradeV3: format 4 added data_key (the key sealed values are encrypted
// under). A format-3 file is a format-4 file with an older number: its
// sealed values are each an age file, which format 4 still opens. Only
// the number changes, in place, so a large file is not read twice.
func upgradeV3(data []byte) ([]byte, error) {
	v, err := findVersion(data)
	if err != nil {
		return nil, err
	}
	if v.version != 3 {
		return nil, fmt.Errorf("format_version is %d, not 3", v.version)
	}
	return slices.Concat(data[:v.start], []byte("4"), data[v.end:]), nil
}

// upgradeV2: format 3 added the shared table. A format-2 file has none, so
// every string in it is literal, even one that begins with "@shared:":
// written again as format 3, such a string moves into the table, and the
// values held alike are shared.
func upgradeV2(data []byte) ([]byte, error) {
	s, err := (&jsonReader{data: data}).state()
	if err != nil {
		return nil, err
	}
	if s.Shared != nil {
		return nil, errors.New(`a format 2 file cannot hold "shared" (it came with format 3)`)
	}
	s.FormatVersion = 3
	return Marshal(s)
}

// upgradeV1: format 2 only added fields (recipients, host_keys, sealed,
// sensitive_outputs, sealed_outputs), so a format-1 file is a format-2
// file with an older number. Its secrets are still in plain text; the next
// write with recipients seals them.
func upgradeV1(data []byte) ([]byte, error) {
	s, err := (&jsonReader{data: data}).state()
	if err != nil {
		return nil, err
	}
	if len(s.Recipients) > 0 || len(s.HostKeys) > 0 || len(s.SealedOutputs) > 0 || len(s.SensitiveOutputs) > 0 || hasSealed(s) {
		return nil, errors.New("a format 1 file cannot hold recipients, host_keys or sealed values (they came with format 2)")
	}
	s.FormatVersion = 2
	w := jsonWriter{}
	w.state(s)
	return w.buf, w.err
}

// stateV0 is format 0, written before format_version existed: the version
// was under "version", resources were an object keyed by address, a pending
// resource was marked by a boolean and dependencies were "depends_on".
type stateV0 struct {
	Version     int                   `json:"version"`
	Serial      uint64                `json:"serial"`
	Lineage     string                `json:"lineage"`
	EggoVersion string                `json:"eggo_version"`
	Resources   map[string]resourceV0 `json:"resources"`
	Outputs     map[string]any        `json:"outputs"`
}

type resourceV0 struct {
	Kind       string         `json:"kind"`
	Node       string         `json:"node"`
	Pending    bool           `json:"pending"`
	Attributes map[string]any `json:"attributes"`
	Sensitive  []string       `json:"sensitive"`
	DependsOn  []string       `json:"depends_on"`
}

func upgradeV0(data []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var old stateV0
	if err := dec.Decode(&old); err != nil {
		return nil, err
	}
	s := State{
		FormatVersion: 1,
		Serial:        old.Serial,
		Lineage:       old.Lineage,
		EggoVersion:   old.EggoVersion,
		Resources:     make([]Resource, 0, len(old.Resources)),
		Outputs:       old.Outputs,
	}
	for addr, r := range old.Resources {
		status := ""
		if r.Pending {
			status = StatusPending
		}
		s.Resources = append(s.Resources, Resource{
			Address:      addr,
			Kind:         r.Kind,
			Node:         r.Node,
			Status:       status,
			Attributes:   r.Attributes,
			Sensitive:    r.Sensitive,
			Dependencies: r.DependsOn,
		})
	}
	slices.SortFunc(s.Resources, compareAddress)
	return json.Marshal(s)
}
