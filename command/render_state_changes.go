package command

import (
	"fmt"
	"strings"

	"github.com/eggo-project/eggo/engine"
	"github.com/eggo-project/eggo/internal/text"
)

// renderUnreadable warns that the state holds secrets that could not be
// decrypted, and why (no identity given, a wrong one, a value altered):
// the plan is partial, and apply will refuse. What it names is the
// state's, so it is made safe, as in renderStateChanges.
func renderUnreadable(b planWriter, p *engine.Plan, col colorizer) {
	if len(p.Unreadable) == 0 {
		return
	}
	why, one := oneReason(p)
	if one {
		fmt.Fprintf(b, "%s %d secret value(s) in the state could not be decrypted: %s.\n", col.c(yellow, "Warning:"), len(p.Unreadable), text.SafeLine(why))
	} else {
		fmt.Fprintf(b, "%s %d secret value(s) in the state could not be decrypted:\n", col.c(yellow, "Warning:"), len(p.Unreadable))
	}
	for _, u := range p.Unreadable {
		if one {
			fmt.Fprintf(b, "  - %s\n", text.SafeLine(u))
		} else {
			fmt.Fprintf(b, "  - %s: %s\n", text.SafeLine(u), text.SafeLine(unreadableReason(p, u)))
		}
	}
	if len(p.Uncompared) > 0 {
		fmt.Fprintf(b, "  Not compared (planning them needs those values; shown as unchanged):\n")
		for _, u := range p.Uncompared {
			fmt.Fprintf(b, "  - %s\n", text.SafeLine(u))
		}
	}
	b.WriteString("  This plan shows every change it can determine without them. eggo apply refuses\n" +
		"  without them: give the identity of a recipient with -identity=FILE or\n" +
		"  EGGO_IDENTITY=FILE.\n\n")
}

// oneReason is the reason all of p's unreadable values share, if they do.
func oneReason(p *engine.Plan) (string, bool) {
	why := unreadableReason(p, p.Unreadable[0])
	for _, u := range p.Unreadable[1:] {
		if unreadableReason(p, u) != why {
			return "", false
		}
	}
	return why, true
}

// unreadableReason is why value u did not open ("no identity given" in a
// plan saved before eggo said why).
func unreadableReason(p *engine.Plan, u string) string {
	if why := p.UnreadableReasons[u]; why != "" {
		return why
	}
	return "no identity given"
}

// renderStateChanges shows what applying changes in the state itself: the
// encryption of its secrets and the host keys it pins.
func renderStateChanges(b planWriter, p *engine.Plan, col colorizer) {
	if s := p.Secrets; s != nil {
		b.WriteString("\nState secrets:\n")
		if s.Encrypt > 0 {
			fmt.Fprintf(b, "  %s %s in plain text will be encrypted to %s\n", col.c(yellow, "~"), text.Plural(s.Encrypt, "secret value"), text.Plural(len(s.Recipients), "recipient"))
		}
		if len(s.Added)+len(s.Removed) > 0 {
			fmt.Fprintf(b, "  %s every secret will be re-encrypted to the new recipients:\n", col.c(yellow, "~"))
			for _, r := range s.Added {
				fmt.Fprintf(b, "      %s %s\n", col.c(green, "+"), text.SafeLine(r))
			}
			for _, r := range s.Removed {
				fmt.Fprintf(b, "      %s %s\n", col.c(red, "-"), text.SafeLine(r))
			}
		}
	}
	if len(p.HostKeys) > 0 {
		b.WriteString("\nHost keys:\n")
		for _, h := range p.HostKeys {
			h.Node, h.Fingerprint = text.SafeLine(h.Node), text.SafeLine(h.Fingerprint) // a forgotten pin is the state's
			switch h.Action {
			case "pin":
				fmt.Fprintf(b, "  %s %s %s (first contact: pinned in the state, verified on every connection after)\n", col.c(green, "+"), h.Node, h.Fingerprint)
			default:
				fmt.Fprintf(b, "  %s %s %s (the node leaves the cluster: its pin is forgotten)\n", col.c(red, "-"), h.Node, h.Fingerprint)
			}
		}
	}
}

// stateChangesSummary extends the plan's summary line.
func stateChangesSummary(p *engine.Plan) string {
	var parts []string
	if p.Secrets != nil {
		parts = append(parts, "secrets re-encrypted")
	}
	pins, forgets := 0, 0
	for _, h := range p.HostKeys {
		if h.Action == "pin" {
			pins++
		} else {
			forgets++
		}
	}
	if pins > 0 {
		parts = append(parts, text.Plural(pins, "host key")+" to pin")
	}
	if forgets > 0 {
		parts = append(parts, text.Plural(forgets, "host key")+" to forget")
	}
	if len(parts) == 0 {
		return ""
	}
	return " State: " + strings.Join(parts, ", ") + "."
}
