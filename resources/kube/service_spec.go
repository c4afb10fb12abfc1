package kube

import (
	"fmt"
	"maps"
	"path"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/eggo-project/eggo/resources"
	"github.com/eggo-project/eggo/resources/pki"
)

// A service is one systemd unit on one node plus the files it reads: the
// unit of work of every Kubernetes component eggo runs. Its attributes:
const (
	svcComponent     = "component"      // kube-apiserver, kubelet, …
	svcUnitName      = "unit_name"      // kube-apiserver.service
	svcUnit          = "unit"           // the unit file's text
	svcFiles         = "files"          // [{path, mode, content | kubeconfig}]: sources, may carry secrets
	svcDigests       = "file_digests"   // {path: sha256} of the files as written
	svcFileModes     = "file_modes"     // {path: mode}: what state keeps of files
	svcDataDirs      = "data_dirs"      // directories the component keeps its data in
	svcPostStart     = "post_start"     // shell run after every (re)start, before the health check
	svcHealth        = "health"         // shell that exits 0 once the component serves
	svcHealthTimeout = "health_timeout" // how long to wait for health
	svcCleanup       = "cleanup"        // shell run after the unit stops for good (unmounts, links)
	svcVersion       = "version"        // the Kubernetes version the binaries come from
	svcAddress       = "address"
	svcConnection    = "connection"
	svcCreatedDirs   = "created_dirs" // computed: directories eggo created, removed on delete
	svcOwnedData     = "owned_data"   // computed: data dirs eggo created or found empty; emptied on delete
	svcLive          = "live"         // computed by refresh: what the host has now
	// svcStaticPod is set when the component runs as a static pod (the pod
	// implementation): unit_name and unit are then its manifest's.
	svcStaticPod = "static_pod"
)

// UnitDir is where eggo writes systemd units.
const UnitDir = "/etc/systemd/system"

// serviceFile is one file a service writes, as configured.
type serviceFile struct {
	Path       string
	Mode       string // octal, "0600"
	Content    any    // string, or Unknown/Ref until known
	Kubeconfig map[string]any
}

// service is a service's attributes in Go form.
type service struct {
	Component     string
	UnitName      string
	Unit          string
	Files         []serviceFile
	DataDirs      []string
	PostStart     string
	Health        string
	HealthTimeout time.Duration
	Cleanup       string
	Version       string
	// Pod is set when the kubelet runs the component from a static pod
	// manifest (UnitName, Unit) instead of systemd from a unit.
	Pod *staticPod
}

// unitPath is where the unit, or the static pod's manifest, is written.
func (s service) unitPath() string {
	if s.Pod != nil {
		return path.Join(s.Pod.ManifestDir, s.UnitName)
	}
	return path.Join(UnitDir, s.UnitName)
}

// runnerText names what runs the service, for a plan.
func (s service) runnerText() string {
	if s.Pod != nil {
		return "static pod " + s.unitPath()
	}
	return "systemd unit " + s.UnitName
}

// restartText says what a restart of the service does, for a plan.
func (s service) restartText() string {
	if s.Pod != nil {
		return "replaces the static pod " + s.unitPath() + " and waits for it to be healthy (the old manifest comes back if it is not)"
	}
	return "restarts " + s.UnitName + " and waits for it to be healthy"
}

// unitText is the unit, or manifest, exactly as written, given the files'
// digests (a manifest carries their digest: configLabel).
func (s service) unitText(digests map[string]any) string {
	if s.Pod != nil {
		return unitHeader + strings.Replace(s.Unit, configPlaceholder, configDigest(s.Unit, digests), 1)
	}
	return unitHeader + s.Unit
}

// attrs turns a service into attributes (without address and connection).
func (s service) attrs() resources.Attrs {
	files := make([]any, len(s.Files))
	for i, f := range s.Files {
		m := map[string]any{"path": f.Path, "mode": f.Mode}
		if f.Kubeconfig != nil {
			m["kubeconfig"] = f.Kubeconfig
		} else {
			m["content"] = f.Content
		}
		files[i] = m
	}
	dirs := make([]any, len(s.DataDirs))
	for i, d := range s.DataDirs {
		dirs[i] = d
	}
	a := resources.Attrs{
		svcComponent:     s.Component,
		svcUnitName:      s.UnitName,
		svcUnit:          s.Unit,
		svcFiles:         files,
		svcDataDirs:      dirs,
		svcPostStart:     s.PostStart,
		svcHealth:        s.Health,
		svcHealthTimeout: s.HealthTimeout.String(),
		svcCleanup:       s.Cleanup,
		svcVersion:       s.Version,
	}
	if s.Pod != nil {
		a[svcStaticPod] = s.Pod.attrs()
	}
	return a
}

// parseService reads a service back from attributes (desired, after Refs
// were substituted, or recorded).
func parseService(a resources.Attrs) service {
	s := service{
		Component: resources.AttrString(a[svcComponent]),
		UnitName:  resources.AttrString(a[svcUnitName]),
		Unit:      resources.AttrString(a[svcUnit]),
		PostStart: resources.AttrString(a[svcPostStart]),
		Health:    resources.AttrString(a[svcHealth]),
		Cleanup:   resources.AttrString(a[svcCleanup]),
		Version:   resources.AttrString(a[svcVersion]),
		Pod:       parseStaticPod(a[svcStaticPod]),
	}
	s.HealthTimeout, _ = time.ParseDuration(resources.AttrString(a[svcHealthTimeout]))
	if s.HealthTimeout <= 0 {
		s.HealthTimeout = 2 * time.Minute
	}
	if list, ok := a[svcFiles].([]any); ok {
		if len(list) > 0 {
			s.Files = make([]serviceFile, 0, len(list))
		}
		for _, e := range list {
			m, _ := e.(map[string]any)
			f := serviceFile{Path: resources.AttrString(m["path"]), Mode: resources.AttrOr(resources.AttrString(m["mode"]), "0644"), Content: m["content"]}
			f.Kubeconfig, _ = m["kubeconfig"].(map[string]any)
			s.Files = append(s.Files, f)
		}
	} else if modes, ok := a[svcFileModes].(map[string]any); ok {
		// A record: paths and modes, no sources.
		if len(modes) > 0 {
			s.Files = make([]serviceFile, 0, len(modes))
		}
		for _, p := range slices.Sorted(maps.Keys(modes)) {
			s.Files = append(s.Files, serviceFile{Path: p, Mode: resources.AttrOr(resources.AttrString(modes[p]), "0644")})
		}
	}
	s.DataDirs = resources.StringList(a[svcDataDirs])
	return s
}

// render returns a file's bytes, or ok=false while an input is unknown.
func (f serviceFile) render() (string, bool) {
	if f.Kubeconfig != nil {
		k := f.Kubeconfig
		parts := []string{"cluster", "server", "ca", "user", "cert", "key"}
		vals := make([]string, len(parts))
		for i, p := range parts {
			s, ok := k[p].(string)
			if !ok {
				return "", false
			}
			vals[i] = s
		}
		return pki.Kubeconfig(vals[0], vals[1], vals[2], vals[3], vals[4], vals[5]), true
	}
	s, ok := f.Content.(string)
	return s, ok
}

// digests are the sha256 of every file that can be rendered now, and
// whether all could.
func (s service) digests() (map[string]any, bool) {
	out := make(map[string]any, len(s.Files))
	all := true
	for _, f := range s.Files {
		content, ok := f.render()
		if !ok {
			out[f.Path] = resources.Unknown{}
			all = false
			continue
		}
		out[f.Path] = resources.SHA256Hex(content)
	}
	return out, all
}

// dirs are the parent directories of the service's files and its data
// directories, parents first.
func (s service) dirs() []string {
	seen := map[string]bool{}
	var out []string
	var add func(string)
	add = func(d string) {
		if d == "/" || d == "." || seen[d] {
			return
		}
		add(path.Dir(d))
		seen[d] = true
		out = append(out, d)
	}
	for _, f := range s.Files {
		add(path.Dir(f.Path))
	}
	for _, d := range s.DataDirs {
		add(d)
	}
	if s.Pod != nil {
		add(s.Pod.ManifestDir)
		add(manifestBackupDir)
	}
	sort.Strings(out) // a parent sorts before its children
	return out
}

// checkPaths refuses files outside absolute paths: a mistake in a
// component's definition must not write somewhere unexpected.
func (s service) checkPaths() error {
	for _, f := range s.Files {
		if !path.IsAbs(f.Path) || path.Clean(f.Path) != f.Path {
			return fmt.Errorf("%s: file path %q is not a clean absolute path", s.Component, f.Path)
		}
	}
	suffix := ".service"
	if s.Pod != nil {
		suffix = ".yaml"
	}
	if strings.ContainsAny(s.UnitName, "/ ") || strings.HasPrefix(s.UnitName, ".") || !strings.HasSuffix(s.UnitName, suffix) {
		return fmt.Errorf("%s: unit name %q is not NAME%s", s.Component, s.UnitName, suffix)
	}
	return nil
}
