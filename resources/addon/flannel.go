package addon

import (
	"fmt"

	"github.com/eggo-project/eggo/resources"
	"github.com/eggo-project/eggo/resources/kube"
	"github.com/eggo-project/eggo/resources/pki"
)

// addonFlannel is the built-in flannel add-on's setting: the user its RBAC
// binds (pki.FlannelUser, the common name of cert.flannel).
const addonFlannel = "flannel"

// flannelRBAC is what flanneld's Kubernetes subnet manager does with the
// API, and nothing more: it reads and watches Nodes (every node's podCIDR
// and VXLAN endpoint) and patches a Node's status (its own endpoint
// annotations, NetworkUnavailable=false). RBAC cannot narrow the patch to
// the node's own object: the one identity serves every worker, as
// kube-proxy's does. It reads no pod: eggo sets NODE_NAME.
func flannelRBAC(user string) string {
	return fmt.Sprintf(`apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: eggo:flannel
rules:
- apiGroups: [""]
  resources: ["nodes"]
  verbs: ["get", "list", "watch"]
- apiGroups: [""]
  resources: ["nodes/status"]
  verbs: ["patch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: eggo:flannel
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: eggo:flannel
subjects:
- apiGroup: rbac.authorization.k8s.io
  kind: User
  name: %q
`, user)
}

// flannelDesired is addon.flannel: flannel's RBAC, applied once the API
// serves (it needs no worker: every flanneld waits for it).
func flannelDesired(c *resources.Cluster, apiservers []string) resources.Desired {
	return resources.Desired{
		Addr:      resources.AddonAddr(kube.FlannelAddon),
		Kind:      "addon",
		Source:    c.Source,
		Range:     c.Ranges.Block,
		Attrs:     resources.Attrs{addonSHA256: resources.SHA256Hex(flannelRBAC(pki.FlannelUser)), addonFlannel: map[string]any{"user": pki.FlannelUser}},
		DependsOn: apiservers,
	}
}
