package engine

import (
	"github.com/hashicorp/hcl/v2"

	"github.com/eggo-project/eggo/engine/config"
)

// Loaded is a configuration read from disk (nil Config for destroy without
// one) with its diagnostics' sources.
type Loaded struct {
	Config *config.Config
	Files  map[string][]byte
}

// LoadConfig reads and evaluates the configuration directory, with the
// command line's hook flags. A command calls it once and hands the result
// to what needs it (OpenBackend, MakePlan, CheckSavedPlan): the engine
// keeps no loaded configuration of its own.
func LoadConfig(o Options) (*Loaded, hcl.Diagnostics) {
	o.defaults()
	cfg, diags := config.Load(o.Dir, o.Vars)
	if !diags.HasErrors() {
		diags = append(diags, config.AddCommandLineHooks(cfg, o.CommandHooks, o.Destroy)...)
	}
	l := &Loaded{Config: cfg}
	if cfg != nil {
		l.Files = cfg.Files
	}
	return l, diags
}

// Validate checks what the resource kinds need beyond the language (for
// example that the package bundle has every file the nodes' roles need).
func Validate(o Options, l *Loaded) error {
	o.defaults()
	_, err := expand(o.Kinds, l.Config.Cluster)
	return err
}
