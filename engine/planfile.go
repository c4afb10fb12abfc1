package engine

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"

	"github.com/eggo-project/eggo/internal/atomicfile"
	"github.com/eggo-project/eggo/resources"
)

// planFileVersion is the format of saved plans (-out).
const planFileVersion = 1

// planFile is a saved plan: the plan itself (Plan), or, for a plan of a
// sealed state, the plan file sealed (SealedTo, SealedPlan: see
// planfile_seal.go), of which only the versions and the recipients are
// readable without an identity.
type planFile struct {
	FormatVersion int      `json:"format_version"`
	EggoVersion   string   `json:"eggo_version"`
	Plan          *Plan    `json:"plan,omitempty"`
	SealedTo      []string `json:"sealed_to,omitempty"`
	SealedPlan    []byte   `json:"sealed_plan,omitempty"`
}

// isPlan reports whether pf is an eggo plan file, plain or sealed.
func (pf *planFile) isPlan() bool {
	return pf.FormatVersion != 0 && (pf.Plan != nil || len(pf.SealedPlan) > 0)
}

// SavePlan writes a plan for a later `eggo apply FILE`. The file is private
// (0600, made anew: an existing file's mode is not reused), since it may
// hold secrets; an existing file that is not an eggo plan is refused (see
// CheckPlanOut for the names a command refuses before planning). With
// s.To, the plan is sealed to those recipients (sealPlan): it then holds
// no secret in clear, and LoadPlan needs an identity of one of them.
// Workspace.SavePlan decides s for a plan it made.
func SavePlan(path string, p *Plan, s PlanSeal) error {
	plain, err := encodePlanFile(planFile{FormatVersion: planFileVersion, EggoVersion: Version, Plan: p})
	if err != nil {
		return fmt.Errorf("saving plan: %w", err)
	}
	if err := checkOverwritable(path); err != nil {
		return err
	}
	data := plain
	if len(s.To) > 0 {
		if data, err = sealPlan(path, plain, s); err != nil {
			return fmt.Errorf("saving plan: %w", err)
		}
	}
	// A new file readable by its owner only: a plan holds the cluster's keys.
	return atomicfile.Write(path, data, 0o600)
}

// encodePlanFile is a plan file's JSON, as it is saved.
func encodePlanFile(pf planFile) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	if err := enc.Encode(pf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// LoadPlan reads a saved plan. A sealed plan is opened with identities
// (-identity files); without one that opens it, it is refused, saying so.
func LoadPlan(path string, identities []string) (*Plan, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading saved plan: %w", err)
	}
	pf, err := decodePlanFile(path, data)
	if err != nil {
		return nil, err
	}
	if len(pf.SealedPlan) > 0 {
		if pf, err = openPlan(path, pf, identities); err != nil {
			return nil, err
		}
	}
	for _, st := range pf.Plan.Steps {
		// Refs and unknown values come back as their JSON forms.
		if st.Desired != nil {
			st.Desired.Attrs = resources.RestoreMarkers(st.Desired.Attrs).(resources.Attrs)
		}
		if st.After != nil {
			st.After = resources.RestoreMarkers(st.After).(resources.Attrs)
		}
	}
	return pf.Plan, nil
}

// decodePlanFile reads a plan file's outer JSON and checks that this eggo
// reads it: its format, and the eggo that made it (before any identity is
// needed to open a sealed one).
func decodePlanFile(path string, data []byte) (*planFile, error) {
	var pf planFile
	if err := json.Unmarshal(data, &pf); err != nil || !pf.isPlan() {
		return nil, fmt.Errorf("%s is not an eggo plan file (%v)", path, err)
	}
	if pf.FormatVersion != planFileVersion {
		return nil, fmt.Errorf("%s: plan format %d, this eggo reads %d", path, pf.FormatVersion, planFileVersion)
	}
	if pf.EggoVersion != Version {
		return nil, fmt.Errorf("%s was made by eggo %s; this is eggo %s: make a new plan", path, pf.EggoVersion, Version)
	}
	return &pf, nil
}
