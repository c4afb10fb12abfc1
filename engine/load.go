package engine

import (
	"github.com/hashicorp/hcl/v2"

	"github.com/eggo-project/eggo/engine/config"
)

// Loaded is a configuration read from disk (nil Config when there is
// none) with its diagnostics and their sources.
type Loaded struct {
	Config *config.Config
	Files  map[string][]byte
	Diags  hcl.Diagnostics // the loading's warnings (errors: Open's ConfigError)
}

// LoadConfig reads and evaluates the configuration directory, with the
// command line's hook flags. A command calls it once and hands the result
// to what needs it (OpenBackend, MakePlan, CheckSavedPlan): the engine
// keeps no loaded configuration of its own.
func LoadConfig(o Options) (*Loaded, hcl.Diagnostics) {
	o.defaults()
	l := loadConfig(Request{Dir: o.Dir, Vars: o.Vars, CommandHooks: o.CommandHooks, Destroy: o.Destroy})
	return l, l.Diags
}

// Validate checks what the resource kinds need beyond the language (for
// example that the package bundle has every file the nodes' roles need).
func Validate(o Options, l *Loaded) error {
	o.defaults()
	_, err := expand(o.Kinds, l.Config.Cluster)
	return err
}
