package host

import (
	"fmt"

	"github.com/eggo-project/eggo/resources"
)

// CheckRecord refuses a host record that would make Delete act outside
// what eggo did on the host: it removes every created path and moves every
// backup over its original, so each must be where eggo puts them. A
// created file is one of the bundle files the record declares (files); a
// created directory, removed only when empty, an absolute clean path; a
// backup exactly HostBackupDir/ORIGINAL, the name moveAside gives it.
func (h *Host) CheckRecord(o resources.Object) error {
	if err := resources.CheckTargetAttrs(o.Attrs); err != nil {
		return err
	}
	files, err := resources.ObjectList(o.Attrs, hostFiles)
	if err != nil {
		return err
	}
	declared := make(map[string]bool, len(files))
	for i, f := range files {
		p, err := resources.PathField(fmt.Sprintf("%s[%d]", hostFiles, i), f, "path")
		if err != nil {
			return err
		}
		declared[p] = true
	}
	if err := checkCreated(o.Attrs, declared); err != nil {
		return err
	}
	return h.checkReplaced(o.Attrs)
}

// checkCreated checks the created entries against the files declared.
func checkCreated(a resources.Attrs, declared map[string]bool) error {
	created, err := resources.ObjectList(a, hostCreated)
	if err != nil {
		return err
	}
	for i, e := range created {
		where := fmt.Sprintf("%s[%d]", hostCreated, i)
		p, err := resources.PathField(where, e, "path")
		if err != nil {
			return err
		}
		switch e["type"] {
		case createdDir:
		case createdFile, nil: // parseRecords reads an entry without a type as a file
			if !declared[p] {
				return fmt.Errorf("%s: the file %s is not one the host records installing (%s): eggo deletes only the bundle files it installed", where, p, hostFiles)
			}
		default:
			return fmt.Errorf("%s.type is not %q or %q", where, createdFile, createdDir)
		}
	}
	return nil
}

// checkReplaced checks each original's backup is where eggo keeps it.
func (h *Host) checkReplaced(a resources.Attrs) error {
	replaced, err := resources.ObjectList(a, hostReplaced)
	if err != nil {
		return err
	}
	for i, e := range replaced {
		where := fmt.Sprintf("%s[%d]", hostReplaced, i)
		p, err := resources.PathField(where, e, "path")
		if err != nil {
			return err
		}
		if want := h.backupPath(p); e["backup"] != want {
			return fmt.Errorf("%s: the backup of %s is recorded as %s, but eggo keeps it at %s: a delete would move another file over the original",
				where, p, describeBackup(e["backup"]), want)
		}
		if _, ok := e["sha256"].(string); !ok {
			return fmt.Errorf("%s.sha256 is not a string", where)
		}
	}
	return nil
}

// describeBackup quotes a recorded backup path, or says it is none.
func describeBackup(v any) string {
	if s, ok := v.(string); ok {
		return fmt.Sprintf("%q", s)
	}
	return "no path"
}
