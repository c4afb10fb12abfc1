package config

import (
	"github.com/hashicorp/hcl/v2"

	"github.com/eggo-project/eggo/resources/hook"
	"github.com/eggo-project/eggo/resources/hookrun"
)

// decodeHookPolicy reads policy and its retry settings. Without policy the
// hook takes its operation's default (hook.DefaultPolicy), so
// Policy stays "".
func decodeHookPolicy(dec *decoder, attrs hcl.Attributes, h *hook.Hook) {
	if a := attrs["policy"]; a != nil {
		s := dec.str(attrs, "policy", "")
		if dec.isUnknown(attrs, "policy") {
			return // validate mode: which settings apply is not known
		}
		switch p := hookrun.Policy(s); p {
		case hookrun.Abort, hookrun.Continue, hookrun.Retry:
			h.Policy = p
		default:
			dec.errorf(a.Expr.Range(), "Invalid policy",
				"policy must be \"abort\" (stop the operation), \"continue\" (record the failure and go on) or \"retry\" "+
					"(bounded attempts with backoff, then fallback); got %s. Without policy, a hook aborts deploy, join and upgrade and continues delete and cleanup.",
				dec.show(a, s))
			return
		}
	}
	if h.Policy != hookrun.Retry {
		for _, n := range []string{"attempts", "backoff", "fallback"} {
			if a := attrs[n]; a != nil {
				dec.errorf(a.NameRange, "Retry setting without retry policy",
					"%s applies only to policy = \"retry\", and hook %q has %s. Set policy = \"retry\", or remove %s.",
					n, h.Name, policyText(h.Policy), n)
			}
		}
		return
	}
	h.Attempts = hookrun.DefaultRetryAttempts
	if n := dec.intPtr(attrs, "attempts", 1, hookrun.MaxAttempts); n != nil {
		h.Attempts = *n
	}
	h.Backoff = dec.duration(attrs, "backoff", hookrun.DefaultBackoff)
	dec.atMost(attrs, "backoff", h.Backoff, hookrun.MaxBackoff, "each wait between attempts is capped there")
	h.Fallback = hookrun.Abort
	if a := attrs["fallback"]; a != nil {
		s := dec.str(attrs, "fallback", "")
		switch p := hookrun.Policy(s); {
		case dec.isUnknown(attrs, "fallback"): // validate mode
		case p == hookrun.Abort || p == hookrun.Continue:
			h.Fallback = p
		default:
			dec.errorf(a.Expr.Range(), "Invalid fallback",
				"fallback is what a retry policy does once its attempts are spent: \"abort\" or \"continue\"; got %s.", dec.show(a, s))
		}
	}
}

func policyText(p hookrun.Policy) string {
	if p == "" {
		return "no policy (the operation's default)"
	}
	return "policy = \"" + string(p) + "\""
}
