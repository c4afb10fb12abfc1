package state

import "fmt"

// validate returns what makes s an invalid state, or "". The reader refuses
// such a file and the writer refuses to produce one, so eggo never writes a
// file it would not read back.
func validate(s *State) string {
	if s.FormatVersion != FormatVersion {
		return fmt.Sprintf("format_version is %d, expected %d", s.FormatVersion, FormatVersion)
	}
	if s.Lineage == "" {
		return "lineage is missing"
	}
	if s.DataKey != "" && len(s.Recipients) == 0 {
		return "data_key is set but recipients are not (the key is sealed to them)"
	}
	seen := make(map[string]struct{}, len(s.Resources))
	for i, r := range s.Resources {
		switch {
		case r.Address == "":
			return fmt.Sprintf("resource #%d (kind %q) has no address", i+1, r.Kind)
		case r.Kind == "":
			return fmt.Sprintf("resource %s has no kind", r.Address)
		case r.Status != "" && r.Status != StatusPending:
			return fmt.Sprintf("resource %s has unknown status %q", r.Address, r.Status)
		}
		if _, dup := seen[r.Address]; dup {
			return fmt.Sprintf("resource address %s appears more than once", r.Address)
		}
		seen[r.Address] = struct{}{}
	}
	return ""
}
