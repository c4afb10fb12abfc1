package config

import (
	"cmp"
	"maps"
	"math/big"
	"regexp"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/eggo-project/eggo/resources"
)

// defaultMaxUnavailable upgrades one worker at a time: the slowest rollout,
// and the one that never takes more capacity away than a single machine.
const defaultMaxUnavailable = 1

// decodeMaxUnavailable reads max_unavailable: how many workers a rolling
// upgrade takes down at a time. Zero would never finish, so it is at least 1.
func decodeMaxUnavailable(dec *decoder, attrs hcl.Attributes) int {
	a := attrs["max_unavailable"]
	v, ok := dec.eval(a, cty.Number)
	if !ok {
		return defaultMaxUnavailable
	}
	bf := v.AsBigFloat()
	n, acc := bf.Int64()
	if !bf.IsInt() || acc != big.Exact || n < 1 || n > maxCount {
		got := clip(bf.Text('g', -1))
		dec.errorf(a.Expr.Range(), "Invalid max_unavailable",
			"max_unavailable is how many workers a rolling upgrade takes down at a time: a whole number from 1 to %d; got %s.",
			maxCount, got)
		return defaultMaxUnavailable
	}
	return int(n)
}

// decodeRuntime reads the runtime block: container runtime settings that
// are off unless the cluster definition asks for them.
func decodeRuntime(dec *decoder, b *hcl.Block) resources.Runtime {
	var r resources.Runtime
	if b == nil {
		return r
	}
	content, diags := b.Body.Content(runtimeSchema)
	dec.diags = append(dec.diags, diags...)
	if p := dec.boolPtr(content.Attributes, "restrict_oom_score_adj"); p != nil {
		r.RestrictOOMScoreAdj = *p
	}
	if p := dec.boolPtr(content.Attributes, "cgroup_root_per_node"); p != nil {
		r.CgroupRootPerNode = *p
	}
	if a, ok := content.Attributes["eviction_hard"]; ok {
		r.EvictionHard = dec.stringMap(content.Attributes, "eviction_hard")
		checkEvictionHard(dec, a, r.EvictionHard)
	}
	if p := dec.intPtr(content.Attributes, "image_gc_high_percent", 1, 100); p != nil {
		r.ImageGCHighPercent = *p
	}
	if p := dec.intPtr(content.Attributes, "image_gc_low_percent", 0, 99); p != nil {
		r.ImageGCLowPercent = *p
	}
	// The kubelet refuses a low threshold not under the high one; each
	// defaults to its own (85, 80) when unset.
	high, low := cmp.Or(r.ImageGCHighPercent, 85), cmp.Or(r.ImageGCLowPercent, 80)
	if a, ok := content.Attributes["image_gc_low_percent"]; ok && low >= high {
		dec.errorf(a.Expr.Range(), "Invalid image_gc_low_percent",
			"image_gc_low_percent (%d) must be below image_gc_high_percent (%d).", low, high)
	} else if a, ok := content.Attributes["image_gc_high_percent"]; ok && low >= high {
		dec.errorf(a.Expr.Range(), "Invalid image_gc_high_percent",
			"image_gc_high_percent (%d) must be above image_gc_low_percent (%d, the kubelet's default when unset).", high, low)
	}
	r.RegistryMirrors = decodeRegistryMirrors(dec, content.Attributes["registry_mirrors"])
	return r
}

// evictionSignals are the kubelet's eviction signals on Linux.
var evictionSignals = []string{"memory.available", "nodefs.available", "nodefs.inodesFree", "imagefs.available",
	"imagefs.inodesFree", "containerfs.available", "containerfs.inodesFree", "pid.available"}

// evictionThreshold is a threshold the kubelet takes: a quantity (100Mi,
// 2Gi, 1000) or a percentage (10%, 2.5%).
var evictionThreshold = regexp.MustCompile(`^([0-9]+(\.[0-9]+)?%|[0-9]+(\.[0-9]+)?([KMGTPE]i?|[kmu]|[eE][0-9]+)?)$`)

// checkEvictionHard refuses, at the attribute, a signal the kubelet does
// not know (naming the ones it does) and a threshold it cannot read.
func checkEvictionHard(dec *decoder, a *hcl.Attribute, m map[string]string) {
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if !slices.Contains(evictionSignals, k) {
			dec.errorf(a.Expr.Range(), "Unknown eviction signal",
				"eviction_hard[%s] is not a signal the kubelet evicts on; the signals are %s.", quoted(k), strings.Join(evictionSignals, ", "))
			continue
		}
		if !evictionThreshold.MatchString(m[k]) {
			dec.errorf(a.Expr.Range(), "Invalid eviction threshold",
				"eviction_hard[%q] = %s: want a quantity (100Mi, 2Gi) or a percentage (10%%).", k, quoted(m[k]))
		}
	}
}
