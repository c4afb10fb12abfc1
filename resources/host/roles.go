package host

import (
	"github.com/eggo-project/eggo/resources"
)

// roleSet is a set of roles, one bit per entry of Roles. The zero set is
// "no role": a file claimed by no role, or a node without known roles.
type roleSet uint32

// rolesOf is the set of a node's roles; names not in Roles are left out
// (validation reports them).
func rolesOf(roles []string) roleSet {
	var s roleSet
	for _, r := range roles {
		for i, known := range resources.Roles {
			if r == known {
				s |= 1 << i
			}
		}
	}
	return s
}

// claimedBy is the set of roles that need the file at rel (a path under
// the target root, without a leading slash).
// When claims of several lengths match, the longest decides (the most
// specific: images/workload-* over images/); roles whose claims tie share
// the file.
func claimedBy(rel string) roleSet {
	var s roleSet
	longest := -1
	for i, role := range resources.Roles {
		for _, p := range resources.RoleClaims(role) {
			if !resources.Claims(p, rel) {
				continue
			}
			switch {
			case len(p) > longest:
				s, longest = 1<<i, len(p)
			case len(p) == longest:
				s |= 1 << i
			}
		}
	}
	return s
}

// wants reports whether a node with roles needs a file claimed by claim.
func (roles roleSet) wants(claim roleSet) bool {
	return claim == 0 || roles&claim != 0
}
