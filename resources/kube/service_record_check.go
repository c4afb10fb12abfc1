package kube

import (
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/eggo-project/eggo/resources"
)

// componentDataDirs are where eggo's components keep their data: a
// service's data_dirs, and the only directories its delete empties or
// removes (owned_data). /opt/containerd is containerd's own plugin
// directory, made at its first start.
var componentDataDirs = map[string][]string{
	resources.CompContainerd: {"/opt/containerd", "/var/lib/containerd", "/var/lib/cni"},
	resources.CompEtcd:       {"/var/lib/etcd"},
	resources.CompKubelet:    {"/var/lib/kubelet"},
}

// dataDirs is a component's data directories, a list of its own.
func dataDirs(component string) []string { return slices.Clone(componentDataDirs[component]) }

// isDataDir reports whether d is one of the components' data directories.
func isDataDir(d string) bool {
	for dirs := range maps.Values(componentDataDirs) {
		if slices.Contains(dirs, d) {
			return true
		}
	}
	return false
}

// CheckRecord refuses a service record whose delete would act outside
// what eggo made: a component eggo does not run as a service, a file or
// unit elsewhere than eggo puts that component's (serviceConfigDir), data
// emptied that is not a component's data directory, a cleanup or
// post_start that is not eggo's own (service_scripts.go).
func (Service) CheckRecord(o resources.Object) error {
	return checkServiceRecord(o.Attrs, o.Node, serviceComponents)
}

// CheckRecord is the service's check: a member is its etcd service.
func (EtcdMember) CheckRecord(o resources.Object) error {
	return checkServiceRecord(o.Attrs, o.Node, []string{resources.CompEtcd})
}

// serviceComponents are the components the service kind runs: every
// node component but etcd (etcd_member's), the routes service before
// flannel included (only deleted now).
var serviceComponents = slices.DeleteFunc(slices.Clone(resources.NodeComponents), func(c string) bool { return c == resources.CompEtcd })

func checkServiceRecord(a resources.Attrs, node string, components []string) error {
	if err := resources.CheckTargetAttrs(a); err != nil {
		return err
	}
	for _, name := range []string{svcUnitName, svcComponent} {
		if v, ok := a[name]; ok {
			if _, isString := v.(string); !isString {
				return fmt.Errorf("%s is not a string", name)
			}
		}
	}
	component := resources.AttrString(a[svcComponent])
	if component != "" && !slices.Contains(components, component) {
		return fmt.Errorf("%s %q is not one eggo runs as this kind (%s)", svcComponent, component, strings.Join(components, ", "))
	}
	if err := checkServiceFiles(a); err != nil {
		return err
	}
	if err := checkUnitName(a, component); err != nil {
		return err
	}
	if _, err := serviceConfigDir(a, component); err != nil {
		return err
	}
	for _, name := range []string{svcDataDirs, svcCreatedDirs} {
		if _, err := resources.PathList(a, name); err != nil {
			return err
		}
	}
	owned, err := resources.PathList(a, svcOwnedData)
	if err != nil {
		return err
	}
	for i, d := range owned {
		if !isDataDir(d) {
			return fmt.Errorf("%s[%d]: %s is not a component's data directory: eggo empties only those", svcOwnedData, i, d)
		}
	}
	if _, err := cleanupToRun(a, node); err != nil {
		return err
	}
	return checkPostStart(a)
}

// checkUnitName refuses a unit other than the one eggo writes for the
// component: COMPONENT.service in UnitDir, or, run as a static pod, its
// manifest COMPONENT.yaml.
func checkUnitName(a resources.Attrs, component string) error {
	u := resources.AttrString(a[svcUnitName])
	if u == "" {
		return nil
	}
	want := component + ".service"
	if _, pod := a[svcStaticPod].(map[string]any); pod {
		want = component + ".yaml"
	}
	if u != want {
		return fmt.Errorf("%s %q is not %q, the unit eggo writes for %s", svcUnitName, u, want, componentText(component))
	}
	return nil
}

// checkServiceFiles checks the paths of the files a service records: its
// file_modes (a record) or files (desired, in older records).
func checkServiceFiles(a resources.Attrs) error {
	if v, ok := a[svcFileModes]; ok {
		modes, isMap := v.(map[string]any)
		if !isMap {
			return fmt.Errorf("%s is not an object", svcFileModes)
		}
		for _, p := range slices.Sorted(maps.Keys(modes)) {
			if err := resources.CheckPath(p); err != nil {
				return fmt.Errorf("%s: %w", svcFileModes, err)
			}
		}
	}
	files, err := resources.ObjectList(a, svcFiles)
	if err != nil {
		return err
	}
	for i, f := range files {
		if _, err := resources.PathField(fmt.Sprintf("%s[%d]", svcFiles, i), f, "path"); err != nil {
			return err
		}
	}
	switch pod := a[svcStaticPod].(type) {
	case nil: // none (parseStaticPod reads null as none)
	case map[string]any:
		if _, err := resources.PathField(svcStaticPod, pod, "manifest_dir"); err != nil {
			return err
		}
	default:
		return fmt.Errorf("%s is not an object", svcStaticPod)
	}
	return nil
}

// componentSystemFiles are the files eggo writes for a component outside
// config_dir: containerd's CNI network (flannel's, and the bridge before
// it).
var componentSystemFiles = map[string][]string{
	resources.CompContainerd: {FlannelCNIConfigPath, LegacyCNIConfigPath},
}

// serviceConfigDir is the config_dir a service record's paths were written
// under ("" when it names none), or an error when a path is not where eggo
// writes the component's: each file in config_dir/COMPONENT/ (the
// apiserver's admin kubeconfig in config_dir itself; containerd's CNI
// network in /etc/cni/net.d), a static pod's manifests in
// config_dir/manifests — all of one config_dir, which may not be /. The
// record does not hold config_dir: its paths, eggo's layout for the
// component, and their agreeing on one are what tie them to it. (Paths
// are checked absolute and clean first: checkServiceFiles.)
func serviceConfigDir(a resources.Attrs, component string) (string, error) {
	type named struct{ where, path string }
	var paths []named
	if modes, ok := a[svcFileModes].(map[string]any); ok {
		for _, p := range slices.Sorted(maps.Keys(modes)) {
			paths = append(paths, named{svcFileModes, p})
		}
	}
	if list, ok := a[svcFiles].([]any); ok {
		for i, e := range list {
			m, _ := e.(map[string]any)
			paths = append(paths, named{fmt.Sprintf("%s[%d].path", svcFiles, i), resources.AttrString(m["path"])})
		}
	}
	dir, from := "", ""
	agree := func(where, p, d string) error {
		switch {
		case d == "/" || d == ".":
			return fmt.Errorf("%s: %s would put config_dir at %s", where, p, d)
		case dir == "":
			dir, from = d, p
		case d != dir:
			return fmt.Errorf("%s: %s is not under the config_dir of %s (%s): eggo writes a service's files under one", where, p, from, dir)
		}
		return nil
	}
	for _, n := range paths {
		parent := path.Dir(n.path)
		switch {
		case slices.Contains(componentSystemFiles[component], n.path):
		case component == resources.CompContainerd && isContainerdHostsFile(n.path): // a registry's mirrors
			if err := agree(n.where, n.path, containerdHostsConfigDir(n.path)); err != nil {
				return "", err
			}
		case component != "" && path.Base(parent) == component:
			if err := agree(n.where, n.path, path.Dir(parent)); err != nil {
				return "", err
			}
		case component == resources.CompAPIServer && path.Base(n.path) == adminKubeconfigName:
			if err := agree(n.where, n.path, parent); err != nil {
				return "", err
			}
		default:
			return "", fmt.Errorf("%s: %s is not where eggo writes the files of %s (CONFIG_DIR/%s/NAME)", n.where, n.path, componentText(component), component)
		}
	}
	if pod, ok := a[svcStaticPod].(map[string]any); ok {
		where := svcStaticPod + ".manifest_dir"
		md := resources.AttrString(pod["manifest_dir"])
		if path.Base(md) != "manifests" {
			return "", fmt.Errorf("%s: %s is not CONFIG_DIR/manifests, where eggo writes static pods", where, md)
		}
		if err := agree(where, md, path.Dir(md)); err != nil {
			return "", err
		}
	}
	return dir, nil
}
