package host

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/eggo-project/eggo/resources"
)

// HostBackupDir is where a host moves aside files that existed before eggo
// wrote over them (/usr/bin/x is kept as HostBackupDir/usr/bin/x) so that
// Delete can put them back.
const HostBackupDir = "/var/lib/eggo/backup"

// maxClockSkew is the largest clock difference preflight accepts: beyond it
// certificates issued here look not-yet-valid there, and etcd complains.
const maxClockSkew = 30 * time.Second

// Host is the host kind: one per node (host.<node>). It checks the machine
// is fit (preflight) and installs the bundle files its roles need, recording
// exactly what it created or moved aside so Delete can undo it.
type Host struct {
	backupDir string           // HostBackupDir; tests point it into a temp root
	root      string           // "/": the role table's paths are under it; tests point it into a temp root
	now       func() time.Time // this machine's clock, for the skew check

	mu sync.Mutex
	// sources maps a sha256 to a local file with that content. Expand fills
	// it; Create and Update copy from it. Keyed by content rather than by
	// path so that state never holds a path of the operator's machine.
	sources map[string]string
	hashed  atomic.Int64 // bundle files hashed, so tests can see the cache work
	// probeHashed counts files a host hashed in a probe (refresh or apply)
	// because their quick check did not vouch for them, so tests can see
	// the quick check work.
	probeHashed atomic.Int64
}

// New returns the host kind.
func New() *Host {
	return &Host{backupDir: HostBackupDir, root: "/", now: time.Now, sources: map[string]string{}}
}

// Name is "host".
func (h *Host) Name() string { return resources.KindHost }

// Attribute names of the host kind.
const (
	hostName       = "name"
	hostAddress    = resources.HostAttrAddress
	hostArch       = resources.HostAttrArch
	hostRoles      = resources.HostAttrRoles
	hostLabels     = "labels"
	hostConnection = resources.HostAttrConnection
	hostFiles      = "files"
	hostFacts      = resources.HostAttrFacts
	hostCreated    = "created"
	hostReplaced   = "replaced"
	hostFileStats  = "file_stats"
)

// Schema describes the host's attributes. Nothing here is secret: the
// connection holds key file paths and the name of a password variable only.
func (h *Host) Schema() resources.Schema {
	return resources.Schema{Attributes: map[string]resources.AttrSchema{
		hostName:    {Description: "node name"},
		hostAddress: {Description: "address eggo connects to", ForceNew: true},
		hostArch:    {Description: "CPU architecture; selects packages/<arch>", ForceNew: true},
		hostRoles: {Description: "roles of the node (master, worker, etcd, loadbalance); they choose the bundle " +
			"files it gets, so a change of roles adds and removes files"},
		hostLabels: {Description: "node labels"},
		hostConnection: {Description: "how to reach the host: type, user, port, private_key_file, password_env, " +
			"agent, known_hosts_file, host_key (when set), sudo, timeout, retries, bastion. A change of type replaces the host; " +
			"other changes are recorded only"},
		hostFiles: {Description: "the package bundle installed: [{path, sha256, mode, size}] sorted by path; " +
			"an entry with drift set was found changed on the host by refresh, or is about to be created (missing)"},
		hostFacts: {Description: "os, os_version, os_name, arch, machine, kernel, hostname as last seen", Computed: true},
		hostCreated: {Description: "[{path, type: file|dir}] sorted by path: everything eggo created on the host, " +
			"the only things Delete removes", Computed: true},
		hostReplaced: {Description: "[{path, backup, sha256}] sorted by path: files that existed with other " +
			"content, moved to backup and restored by Delete", Computed: true},
		hostFileStats: {Description: "{path: \"SIZE MTIME CTIME\"}: each installed file's stat when its sha256 was " +
			"last verified; a refresh hashes only files whose stat differs (absent in older states: all are hashed)", Computed: true},
	}}
}
