package engine

import (
	"github.com/eggo-project/eggo/resources"
	"github.com/eggo-project/eggo/state"
)

// checkRecords refuses a state holding a record eggo would not have
// written, before anything uses it: each kind that acts on its records
// (resources.RecordChecker: the paths a destroy removes, the host it
// connects to) checks its own, and any other record that says how to
// reach a host says it with the types eggo writes. The state package has
// checked the file's shape already (addresses, kinds, host keys,
// recipients); what a kind's attributes mean only the kind knows. One
// pass, no copy of any record.
func checkRecords(st *state.State, kinds []resources.Kind, desc string) error {
	if st == nil {
		return nil
	}
	checkers := map[string]resources.RecordChecker{}
	for _, k := range kinds {
		if c, ok := k.(resources.RecordChecker); ok {
			checkers[k.Name()] = c
		}
	}
	for i := range st.Resources {
		r := &st.Resources[i]
		var err error
		if c, ok := checkers[r.Kind]; ok {
			err = c.CheckRecord(resources.Object{Addr: r.Address, Kind: r.Kind, Node: r.Node, Attrs: r.Attributes, Pending: r.Status == state.StatusPending})
		} else {
			err = resources.CheckTargetAttrs(r.Attributes)
		}
		if err != nil {
			return errorf("%s holds a record eggo would not have written: %s: %v. "+
				"The state is refused whole and nothing was changed: restore the file from its history or from the backup beside it", desc, r.Address, err)
		}
	}
	return nil
}
