package engine

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/eggo-project/eggo/internal/text"
	"github.com/eggo-project/eggo/resources"
)

// refresh reads every recorded resource in scope from its host, at most
// o.Parallelism at once, and replaces its attributes with the live ones
// (nil: gone). It returns the drift each read found. Nothing is written
// anywhere.
func refresh(ctx context.Context, o options, rc *resources.RunContext, kinds map[string]resources.Kind, have map[string]*resources.Object, scope map[string]bool) (map[string][]resources.Reason, error) {
	drift := map[string][]resources.Reason{}
	if o.NoRefresh {
		return drift, nil
	}
	var addrs []string
	for _, addr := range slices.Sorted(maps.Keys(have)) {
		if scope == nil || scope[addr] {
			addrs = append(addrs, addr)
		}
	}
	var (
		mu     sync.Mutex
		forced []string
	)
	wr := eachBounded(ctx, o.Parallelism, addrs, func(ctx context.Context, addr string) error {
		obj := have[addr]
		o.Observer.Refreshing(obj.Addr)
		live, reasons, err := kinds[obj.Kind].Read(ctx, rc, *obj)
		mu.Lock()
		defer mu.Unlock()
		if err != nil && o.Force && resources.IsUnreachable(err) {
			// -force: keep what state says; the delete drops it.
			forced = append(forced, obj.Addr)
			return nil
		}
		if err != nil {
			return err
		}
		obj.Attrs = live
		if len(reasons) > 0 {
			drift[obj.Addr] = reasons
		}
		return nil
	})
	if len(wr.Errors) > 0 {
		return nil, refreshError(wr.Errors)
	}
	for _, a := range forced {
		drift[a] = append(drift[a], resources.Reason{Code: resources.ReasonDrift, Detail: "host unreachable: not refreshed (-force)"})
	}
	return drift, ctx.Err()
}

// refreshError lists every failed read, sorted, with a hint for a host
// that cannot be reached.
func refreshError(failed map[string]error) *RefreshError {
	var errs []string
	for addr, err := range failed {
		hint := ""
		if resources.IsUnreachable(err) {
			hint = " (to remove a dead host from the cluster and the state without touching it, use -force)"
		}
		errs = append(errs, fmt.Sprintf("%s: refresh failed: %v%s", addr, err, hint))
	}
	sort.Strings(errs)
	return &RefreshError{Failures: errs}
}

// RefreshError lists every resource that could not be read.
type RefreshError struct{ Failures []string }

func (e *RefreshError) Error() string {
	return "could not read the live state of " + text.Plural(len(e.Failures), "resource") + ":\n  " + strings.Join(e.Failures, "\n  ")
}
