package resources

import (
	"fmt"
	"sort"
	"sync"
)

// The registry of kinds. Kinds register themselves from init functions; the
// engine looks them up by the first part of an address.
var (
	registryMu sync.RWMutex
	registry   = map[string]Kind{}
)

// Register adds a kind. A second kind of the same name is a programming
// error, so it panics rather than silently replacing the first.
func Register(k Kind) {
	name := k.Name()
	if name == "" {
		panic("resources.Register: kind with empty name")
	}
	registryMu.Lock()
	defer registryMu.Unlock()
	if _, dup := registry[name]; dup {
		panic(fmt.Sprintf("resources.Register: kind %q registered twice", name))
	}
	registry[name] = k
}

// Lookup returns the kind of that name.
func Lookup(name string) (Kind, bool) {
	registryMu.RLock()
	defer registryMu.RUnlock()
	k, ok := registry[name]
	return k, ok
}

// Kinds returns every registered kind, sorted by name so that anything the
// engine derives from this list (expansion order, messages) is stable.
func Kinds() []Kind {
	registryMu.RLock()
	defer registryMu.RUnlock()
	out := make([]Kind, 0, len(registry))
	for _, k := range registry {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name() < out[j].Name() })
	return out
}
