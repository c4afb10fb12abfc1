package engine

import (
	"path/filepath"

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

// hasConfig says whether dir holds a configuration file.
func hasConfig(dir string) bool {
	m, _ := filepath.Glob(filepath.Join(dir, "*.hcl"))
	return len(m) > 0
}

// loadConfig reads and evaluates the configuration directory, with the
// command line's hooks.
func loadConfig(r Request) *Loaded {
	cfg, diags := config.Load(r.Dir, r.Vars)
	if !diags.HasErrors() {
		diags = append(diags, config.AddCommandLineHooks(cfg, r.CommandHooks, r.Destroy)...)
	}
	l := &Loaded{Config: cfg, Diags: diags}
	if cfg != nil {
		l.Files = cfg.Files
	}
	return l
}
