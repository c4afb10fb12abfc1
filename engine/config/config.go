// Package config is the eggo language: it loads the *.hcl files of one
// directory into the cluster model (resources.Cluster) that every resource
// kind expands from. Decoding happens in two stages, like Terraform and
// Packer: the top-level schema first, then each block's body with exactly
// the variables that block may see, in the order its references demand.
package config

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/eggo-project/eggo/resources"
	"github.com/eggo-project/eggo/resources/hook"
)

// VarInput is where input variable values come from, besides defaults.
// Precedence (lowest first): default, EGGO_VAR_name in Env, VarFiles in
// order, Vars in order.
type VarInput struct {
	Vars     []string // "name=value" from -var, in command-line order
	VarFiles []string // -var-file paths (HCL, or JSON when the name ends .json)
	Env      []string // os.Environ(), scanned for EGGO_VAR_name
	// Validate is `eggo validate`'s mode, as in Terraform: a variable
	// that has no value (given or default) is an unknown value of its
	// type instead of an error, and what depends on an unknown value is
	// left unchecked. Values that are given are used and checked as
	// usual. A Config loaded this way is for checking only: see Unset.
	Validate bool
	// CheckKeyFiles makes Load check, at its line, that every
	// private_key_file (a connection's, a bastion's) is a file this user
	// can open: validate, plan and apply ask for it, so a missing key is
	// found before any host is contacted rather than in the middle of an
	// apply. Tests and tools that never connect leave it off.
	CheckKeyFiles bool
	// ConfineFiles confines what the configuration reads on this machine
	// to its directory and the bundle, and refuses hooks that would run
	// here (confine.go): -confine-files, and a GitOps Job always. The
	// environment's EGGO_CONFINE_FILES=1 turns it on too.
	ConfineFiles bool
}

// Config is a loaded cluster definition.
type Config struct {
	Dir     string
	Cluster *resources.Cluster
	// Hooks are the hook blocks, in declaration order, then the hooks of
	// the command line (--prehook …). They are the run's, not the
	// cluster model's: kinds never see them; the engine places them.
	Hooks   []hook.Hook
	Outputs []Output // sorted by name
	// Files maps each file name used in diagnostic ranges to its source, so
	// WriteDiagnostics can print snippets.
	Files map[string][]byte
	// Hash is a sha256 over the files, the files read by file() and
	// templatefile(), and the resolved variable values. A saved plan keeps it
	// to refuse being applied to a configuration that changed since.
	Hash string
	// Secrets names who the state's secrets are encrypted to; nil when
	// the configuration has no secrets block.
	Secrets *Secrets
	// Backend is where the state lives: nil means the state file.
	Backend *Backend
	// Unset names, in declaration order, the variables that had no value
	// in validate mode (VarInput.Validate) and were taken as unknown. The
	// parts of Cluster that depend on them hold zero values, and the
	// node instances of a for_each or count that depends on them are
	// missing: such a Config must not be planned.
	Unset []string
}

// Output is one output block, evaluated.
type Output struct {
	Name        string
	Description string
	Value       cty.Value // unmarked; Sensitive says whether it may be shown
	Sensitive   bool
	Range       hcl.Range
}

// Load reads every *.hcl file of dir and decodes the cluster definition.
// When diags has errors the returned Config holds only Dir and Files (for
// printing the diagnostics with snippets); Cluster is nil.
func Load(dir string, in VarInput) (*Config, hcl.Diagnostics) {
	l := newLoader(dir)
	cfg, diags := l.load(in)
	diags = append(diags, l.loadHooks(cfg)...)
	diags = append(diags, l.loadStateBlocks(cfg)...)
	if diags.HasErrors() {
		// Keep the sources so callers can print snippets with WriteDiagnostics.
		return &Config{Dir: dir, Files: l.sources}, capDiagnostics(diags)
	}
	return cfg, capDiagnostics(diags)
}
