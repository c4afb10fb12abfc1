package config

import (
	"github.com/hashicorp/hcl/v2"
)

// Where a sensitive value may go. A value computed from a sensitive
// variable, or from a file function's read of a private key, an identity
// or a token (credentials.go), keeps go-cty's mark through every
// expression and function, so
// the decoder sees it at the attribute it lands in, whatever the path. It
// refuses it there unless the attribute is a carrier: a place eggo keeps
// secret end to end. Everything else a configuration says is shown in
// plans and logs, stored in the state unsealed, or lands on a host or in
// Kubernetes where eggo cannot hide it — so a secret there would leak by
// construction, and refusing it is the only honest answer.
//
// The carriers: a web check's headers (sent by eggo itself, never printed
// — errors are scrubbed of them — and not stored in the state) and an
// output declared sensitive = true (sealed in the state, shown as
// "(sensitive value)"; outputs are decoded in outputs.go). A saved plan
// file holds header values in clear, as it holds the cluster's private
// keys; it is written 0600.

// allowSensitive lets a (nil when absent) hold a sensitive value.
func (d *decoder) allowSensitive(a *hcl.Attribute) {
	if a == nil {
		return
	}
	if d.carriers == nil {
		d.carriers = map[*hcl.Attribute]bool{}
	}
	d.carriers[a] = true
}

// whereItShows says, for the attributes people are most likely to feed a
// secret, where eggo could not hide it.
var whereItShows = map[string]string{
	"labels":      "labels are stored in Kubernetes (a node's, readable by anyone who may list nodes) or passed to hooks as arguments (the cluster's, on a command line every user of the host can read)",
	"annotations": "annotations are passed to hooks on their command line, which every user of the host can read (ps)",
	"extra_args":  "a flag lands on the component's command line and in its unit file, which every user of the host can read (ps, systemctl show)",
	"args":        "hook arguments are on the script's command line, which every user of the host can read (ps)",
	"url":         "the URL appears in the check's errors; put a credential in a header",
	"body":        "only headers are kept out of errors and logs; put a credential in a header",
}

// refuseSensitive reports a sensitive value in an attribute that is not a
// carrier, at its line, without the value.
func (d *decoder) refuseSensitive(a *hcl.Attribute) {
	why, ok := whereItShows[a.Name]
	if !ok {
		why = "eggo shows it in plans and logs and stores it in the state unsealed"
	}
	d.errorf(a.Expr.Range(), "Sensitive value not allowed here",
		"The value of %q is computed from a sensitive value (a sensitive variable, or a file that holds a private key, an identity "+
			"or a token), and %s. Only a web check's headers and an output with sensitive = true can hold a secret; "+
			"pass anything else as a file the host reads.", a.Name, why)
}
