package kube

import (
	"fmt"

	"github.com/eggo-project/eggo/providers/shell"
)

// importImage is the shell that makes containerd's image of a static pod
// the bundle's: imported from its archive unless containerd already holds
// that very image. The name alone does not say so: containerd imports every
// archive of the images directory when it starts, and another image can come
// under the same name (the conformance tests' upstream
// registry.k8s.io/etcd:3.5.15-0 did, and three static-pod etcd members that
// ran it each started a cluster of their own). So the image's digest is
// compared with the manifest's in the archive's index.json; an import of the
// archive points the name at the bundle's image again. Without the archive
// on the host, an image of that name is taken as it is.
func importImage(image, archive string) string {
	return fmt.Sprintf(`want=
if [ -f %[2]s ]; then want=$(tar -xOf %[2]s index.json | grep -o '"digest": *"sha256:[0-9a-f]*"' | head -n1 | grep -o 'sha256:[0-9a-f]*'); fi
have=$(ctr -n k8s.io images ls name==%[1]s | awk 'NR == 2 { print $3 }')
if [ -z "$have" ] || [ "$have" != "${want:-$have}" ]; then
  [ -f %[2]s ] || { echo "containerd has no image, and the package bundle did not bring its archive:" %[1]s %[2]s >&2; exit 1; }
  ctr -n k8s.io images import %[2]s >/dev/null
fi
`, shell.Quote(image), shell.Quote(archive))
}
