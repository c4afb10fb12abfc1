// Package ociimage writes a one-layer container image as an OCI image layout in
// a tar archive: the format `ctr images import` (and so eggo's bundle) takes
// when no registry is reachable.
//
// The archive is byte-for-byte reproducible: entries are sorted, times and
// owners fixed, and the layer is left uncompressed (its digest is then also its
// diff ID). A rebuilt bundle therefore has the same image digest and checksum,
// and hosts that already hold it copy nothing.
package ociimage

// Image is what goes into the archive.
type Image struct {
	// Name is the full image reference (registry.k8s.io/pause:3.10). Both
	// org.opencontainers.image.ref.name and io.containerd.image.name carry it,
	// so containerd imports it under this name with no --base-name.
	Name       string
	OS         string // linux when empty
	Arch       string // amd64 when empty
	Entrypoint []string
	Cmd        []string // the default arguments (or command, with no Entrypoint)
	Env        []string // KEY=VALUE; containerd and the CRI set no PATH when the image names one
	WorkingDir string   // the process's directory; / when empty
	User       string   // numeric uid:gid, e.g. 65535:65535; empty for root
	Files      []File   // the layer's content
}

// File is one entry of the image's single layer, owned by root.
type File struct {
	Path    string // absolute path in the image, e.g. /pause
	Mode    int64  // permission bits, e.g. 0o755; setuid, setgid and sticky bits are kept
	Content []byte // a regular file's content
	// Type is the entry's kind: a regular file when empty.
	Type FileType
	// Link is a symlink's target, as the link holds it (relative or absolute).
	Link string
}

// FileType says what a File is. Directories are implied by the paths below
// them (mode 0755); a Dir entry gives one its own mode (a sticky /tmp) or
// makes an empty one.
type FileType int

const (
	Regular FileType = iota
	Dir
	Symlink
)

// Media types and annotation keys of the OCI image spec and containerd.
const (
	mediaTypeIndex    = "application/vnd.oci.image.index.v1+json"
	mediaTypeManifest = "application/vnd.oci.image.manifest.v1+json"
	mediaTypeConfig   = "application/vnd.oci.image.config.v1+json"
	mediaTypeLayer    = "application/vnd.oci.image.layer.v1.tar"
	annotationRefName = "org.opencontainers.image.ref.name"
	annotationCtrName = "io.containerd.image.name"
)
