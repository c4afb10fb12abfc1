package kube

import (
	"fmt"
	"maps"
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
// what eggo made: a path that is not absolute and clean, a unit name that
// is a path, data emptied that is not a component's data directory.
func (Service) CheckRecord(o resources.Object) error { return checkServiceRecord(o.Attrs) }

// CheckRecord is the service's check: a member is its etcd service.
func (EtcdMember) CheckRecord(o resources.Object) error { return checkServiceRecord(o.Attrs) }

func checkServiceRecord(a resources.Attrs) error {
	if err := resources.CheckTargetAttrs(a); err != nil {
		return err
	}
	for _, name := range []string{svcUnitName, svcCleanup, svcComponent} {
		if v, ok := a[name]; ok {
			if _, isString := v.(string); !isString {
				return fmt.Errorf("%s is not a string", name)
			}
		}
	}
	if u := resources.AttrString(a[svcUnitName]); strings.Contains(u, "/") || u == "." || u == ".." {
		return fmt.Errorf("%s %q is not a unit's file name", svcUnitName, u)
	}
	if err := checkServiceFiles(a); err != nil {
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
	if pod, ok := a[svcStaticPod].(map[string]any); ok {
		if _, err := resources.PathField(svcStaticPod, pod, "manifest_dir"); err != nil {
			return err
		}
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
	return nil
}
