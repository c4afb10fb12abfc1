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

type planFile struct {
	FormatVersion int    `json:"format_version"`
	EggoVersion   string `json:"eggo_version"`
	Plan          *Plan  `json:"plan"`
}

// SavePlan writes a plan for a later `eggo apply FILE`. The file is private
// (0600, made anew: an existing file's mode is not reused), since it may
// hold secrets; an existing file that is not an eggo plan is refused (see
// CheckPlanOut for the names a command refuses before planning).
func SavePlan(path string, p *Plan) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	if err := enc.Encode(planFile{FormatVersion: planFileVersion, EggoVersion: Version, Plan: p}); err != nil {
		return fmt.Errorf("saving plan: %w", err)
	}
	if err := checkOverwritable(path); err != nil {
		return err
	}
	// A new file readable by its owner only: a plan holds the cluster's keys.
	return atomicfile.Write(path, buf.Bytes(), 0o600)
}

// LoadPlan reads a saved plan.
func LoadPlan(path string) (*Plan, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading saved plan: %w", err)
	}
	var pf planFile
	if err := json.Unmarshal(data, &pf); err != nil || pf.Plan == nil {
		return nil, fmt.Errorf("%s is not an eggo plan file (%v)", path, err)
	}
	if pf.FormatVersion != planFileVersion {
		return nil, fmt.Errorf("%s: plan format %d, this eggo reads %d", path, pf.FormatVersion, planFileVersion)
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
	if pf.EggoVersion != Version {
		return nil, fmt.Errorf("%s was made by eggo %s; this is eggo %s: make a new plan", path, pf.EggoVersion, Version)
	}
	return pf.Plan, nil
}
