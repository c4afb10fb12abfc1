package state

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"golang.org/x/crypto/ssh"
)

// validateRead returns what, beyond validate, makes a file one eggo did
// not write, or "": checked when a file is read, before anything in it is
// used. Whoever can write the file (a commit to the repository that holds
// it) chooses everything in it; what eggo trusts of it is what these
// checks and the kinds' own (engine) let through.
func validateRead(s *State) string {
	for i, r := range s.Recipients {
		if _, err := ParseRecipient(r); err != nil {
			return fmt.Sprintf("recipients[%d] is not a recipient: %v", i, err)
		}
	}
	if len(s.HostKeys) > 0 {
		for _, node := range slices.Sorted(maps.Keys(s.HostKeys)) {
			if problem := hostKeyProblem(node, s.HostKeys[node]); problem != "" {
				return problem
			}
		}
	}
	if len(s.Recipients) > 0 {
		return plainInSealed(s)
	}
	return ""
}

// hostKeyProblem checks one pin as eggo writes it: a node's name and one
// public key, "TYPE BASE64" (providers/ssh.FormatHostKey).
func hostKeyProblem(node, line string) string {
	if !isName(node) {
		return fmt.Sprintf("host_keys: %q is not a node's name", node)
	}
	_, _, options, rest, err := ssh.ParseAuthorizedKey([]byte(line))
	switch {
	case err != nil:
		return fmt.Sprintf("host_keys.%s is not an SSH public key (\"TYPE BASE64\", as in authorized_keys): %v", node, err)
	case len(options) > 0 || strings.TrimSpace(string(rest)) != "":
		return fmt.Sprintf("host_keys.%s is not one SSH public key as \"TYPE BASE64\" (it has options or further lines)", node)
	}
	return ""
}

// plainInSealed refuses a sensitive value in plain text in a state whose
// secrets are sealed. eggo never writes one (every write seals them all),
// so someone moved it out of "sealed": read as it is, it would be taken
// as the secret and sealed in under the recipients' key on the next write,
// a value no recipient ever chose (a CA key its writer holds).
func plainInSealed(s *State) string {
	for _, r := range s.Resources {
		for _, name := range r.Sensitive {
			if _, plain := r.Attributes[name]; plain {
				return fmt.Sprintf("resource %s: its sensitive attribute %q is in plain text in a state whose secrets are sealed (it belongs in \"sealed\", encrypted); "+
					"eggo never writes that, so the file was edited: restore the sealed value (git history has it)", r.Address, name)
			}
		}
	}
	for _, name := range s.SensitiveOutputs {
		if _, plain := s.Outputs[name]; plain {
			return fmt.Sprintf("output %q is sensitive and in plain text in a state whose secrets are sealed (it belongs in \"sealed_outputs\"); "+
				"eggo never writes that, so the file was edited: restore the sealed value (git history has it)", name)
		}
	}
	return ""
}
