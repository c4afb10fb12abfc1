package engine

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// CheckPlanOut refuses a -out path whose file eggo must not overwrite with
// a plan: the state r names (and its backup, lock and hook log), a
// configuration file (*.hcl), a -var-file, or any existing file that is
// not an eggo plan. A command checks before it opens a workspace, so a
// refused -out costs nothing and changes nothing.
func (r Request) CheckPlanOut(path string) error {
	statePath := r.StatePath
	if statePath == "" {
		statePath = filepath.Join(r.Dir, "eggo.state")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return fmt.Errorf("-out=%s: %w", path, err)
	}
	if state, err := filepath.Abs(statePath); err == nil && (abs == state || strings.HasPrefix(abs, state+".")) {
		return fmt.Errorf("-out=%s is the state file, or a name beside it (%s.*) that eggo keeps for the state's backup, lock and hook log: a plan file must be a file of its own", path, statePath)
	}
	if strings.HasSuffix(abs, ".hcl") {
		return fmt.Errorf("-out=%s is a configuration file name (*.hcl): a plan file must be a file of its own", path)
	}
	for _, vf := range r.Vars.VarFiles {
		if v, err := filepath.Abs(vf); err == nil && v == abs {
			return fmt.Errorf("-out=%s is a -var-file of this run: a plan file must be a file of its own", path)
		}
	}
	return checkOverwritable(path)
}

// checkOverwritable allows a path that does not exist or holds an eggo
// plan, plain or sealed (a plan is replaced by a newer one); anything else
// is refused.
func checkOverwritable(path string) error {
	data, err := os.ReadFile(path)
	switch {
	case os.IsNotExist(err):
		return nil
	case err != nil:
		return fmt.Errorf("-out=%s: %w", path, err)
	}
	var pf planFile
	if json.Unmarshal(data, &pf) != nil || !pf.isPlan() {
		return fmt.Errorf("-out=%s exists and is not an eggo plan file: eggo overwrites only its own plans; choose another name or remove it", path)
	}
	return nil
}
