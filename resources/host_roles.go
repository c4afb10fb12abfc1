package resources

import "strings"

// roleFiles says which files of the package bundle each role needs, as
// paths under the target root; an entry ending in "/" claims everything
// under that directory. A bundle file no role claims goes to every node:
// that is how users ship their own tools. Every role of Roles has an entry,
// loadbalance an empty one: it runs the distribution's haproxy.
var roleFiles = map[string][]string{
	"etcd": {"usr/local/bin/etcd", "usr/local/bin/etcdctl"},
	"master": {
		"usr/local/bin/kube-apiserver", "usr/local/bin/kube-controller-manager",
		"usr/local/bin/kube-scheduler", "usr/local/bin/kubectl",
	},
	"worker": {
		"usr/local/bin/kubelet", "usr/local/bin/kube-proxy", "usr/local/bin/kubectl",
		"usr/local/bin/containerd", "usr/local/bin/containerd-shim-runc-v2", "usr/local/bin/ctr",
		"usr/local/bin/runc", "opt/cni/bin/", "var/lib/eggo/images/",
	},
	"loadbalance": {},
}

// roleSet is a set of roles, one bit per entry of Roles. The zero set is
// "no role": a file claimed by no role, or a node without known roles.
type roleSet uint32

// rolesOf is the set of a node's roles; names not in Roles are left out
// (validation reports them).
func rolesOf(roles []string) roleSet {
	var s roleSet
	for _, r := range roles {
		for i, known := range Roles {
			if r == known {
				s |= 1 << i
			}
		}
	}
	return s
}

// claimedBy is the set of roles that need the file at rel (a path under
// the target root, without a leading slash).
func claimedBy(rel string) roleSet {
	var s roleSet
	for i, role := range Roles {
		for _, p := range roleFiles[role] {
			if rel == p || (strings.HasSuffix(p, "/") && strings.HasPrefix(rel, p)) {
				s |= 1 << i
				break
			}
		}
	}
	return s
}

// wants reports whether a node with roles needs a file claimed by claim.
func (roles roleSet) wants(claim roleSet) bool {
	return claim == 0 || roles&claim != 0
}
