package kube

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/eggo-project/eggo/resources"
)

// Service is the service kind: one systemd unit and its files on one node
// (service.kube-apiserver["m0"]). A changed unit or file is written, then
// the unit is restarted and its health checked; a unit stopped or edited
// outside eggo is drift.
type Service struct{}

// Name is "service".
func (Service) Name() string { return "service" }

// Schema describes a service's attributes.
func (Service) Schema() resources.Schema { return serviceSchema() }

// plannedSchema is serviceSchema made once, for Plan's reading only: a
// plan asks it of every service, and a 16-attribute map each time was 5 MB
// of a 1,000-node plan.
var plannedSchema = sync.OnceValue(serviceSchema)

func serviceSchema() resources.Schema {
	return resources.Schema{Attributes: map[string]resources.AttrSchema{
		svcComponent: {Description: "the component (kube-apiserver, kubelet, …)"},
		svcUnitName:  {Description: "the systemd unit", ForceNew: true},
		svcUnit:      {Description: "the unit file eggo writes to " + UnitDir},
		svcFiles:     {Description: "the files the component reads: [{path, mode}] (their contents may hold keys)", Sensitive: true},
		// Not computed: known at plan time from the files, and what a plan
		// lists as changed when a file's content changes.
		svcDigests:       {Description: "sha256 of each file as written"},
		svcFileModes:     {Description: "the mode of each file, by path (what state keeps of files)"},
		svcDataDirs:      {Description: "where the component keeps data; emptied on delete when eggo created it or found it empty"},
		svcPostStart:     {Description: "shell run on the host after each start"},
		svcHealth:        {Description: "shell that succeeds once the component serves"},
		svcHealthTimeout: {Description: "how long to wait for health"},
		svcCleanup:       {Description: "shell run on the host after the unit is stopped for good"},
		svcVersion:       {Description: "the Kubernetes version of the binaries"},
		svcAddress:       {Description: "address eggo connects to", ForceNew: true},
		svcConnection:    {Description: "how to reach the host"},
		svcCreatedDirs:   {Description: "directories eggo created, removed on delete", Computed: true},
		svcOwnedData:     {Description: "data directories eggo owns", Computed: true},
		svcLive:          {Description: "what refresh found on the host", Computed: true},
		svcStaticPod:     {Description: "set when the kubelet runs the component as a static pod (implementation = \"pod\"): the manifests directory, the pod's name, its image and the image's archive"},
	}}
}

// Expand returns every component's service on every node.
func (Service) Expand(c *resources.Cluster) ([]resources.Desired, error) {
	if err := checkVersionSkew(c); err != nil {
		return nil, err
	}
	return componentServices(c)
}

// Recall reads the Kubernetes versions the cluster runs from the state
// (RecallKubernetesVersions): a plan moves them one minor at a time.
func (Service) Recall(c *resources.Cluster, recorded func(kind string) []resources.Object) {
	RecallKubernetesVersions(c, recorded)
}

// Read refreshes a service: whether its unit runs and the digests of its
// unit and files.
func (Service) Read(ctx context.Context, rc *resources.RunContext, prior resources.Object) (resources.Attrs, []resources.Reason, error) {
	return readService(ctx, rc, prior)
}

func readService(ctx context.Context, rc *resources.RunContext, prior resources.Object) (resources.Attrs, []resources.Reason, error) {
	if prior.Attrs == nil {
		return nil, nil, nil
	}
	conn, err := serviceConn(ctx, rc, prior.Node, prior.Addr, prior.Attrs)
	if err != nil {
		return nil, nil, err
	}
	s := parseService(prior.Attrs)
	paths := make([]string, len(s.Files))
	for i, f := range s.Files {
		paths[i] = f.Path
	}
	recorded, _ := prior.Attrs[svcDigests].(map[string]any)
	live, err := probeService(ctx, conn, s, recorded, paths, componentChecks(rc, prior, s))
	if err != nil {
		return nil, nil, fmt.Errorf("%s: refreshing: %w", prior.Addr, err)
	}
	out := make(resources.Attrs, len(prior.Attrs)+1)
	for k, v := range prior.Attrs {
		out[k] = v
	}
	out[svcLive] = live.attrs()
	return out, nil, nil
}

// serviceDelta is how a service's recorded state differs from what is
// wanted, and whether that calls for touching the host.
type serviceDelta struct {
	config  []string        // what changed in config, for the reason
	upgrade string          // "1.31.3 → 1.31.4"
	drift   []string        // what changed on the host
	upload  map[string]bool // files to (re)write
	unit    bool            // rewrite the unit
	restart bool            // anything above: restart and check health
	record  bool            // attributes to record without touching the host
}

func diffService(prior resources.Attrs, want service) serviceDelta {
	digests, _ := want.digests()
	return diffServiceDigests(prior, want, digests)
}

// diffServiceDigests is diffService with want's digests already made
// (rendering every kubeconfig to hash it is most of a service's plan).
func diffServiceDigests(prior resources.Attrs, want service, digests map[string]any) serviceDelta {
	d := serviceDelta{upload: map[string]bool{}}
	have := parseService(prior)
	recorded, _ := prior[svcDigests].(map[string]any)
	var changedFiles []string
	for _, f := range want.Files {
		sum := digests[f.Path]
		old, ok := recorded[f.Path]
		switch {
		case !ok:
			changedFiles = append(changedFiles, "+"+f.Path)
		case !resources.Equal(sum, old):
			changedFiles = append(changedFiles, "~"+f.Path)
		default:
			continue
		}
		d.upload[f.Path] = true
	}
	modes := map[string]string{}
	for _, f := range have.Files {
		modes[f.Path] = f.Mode
	}
	for _, f := range want.Files {
		if m, ok := modes[f.Path]; ok && m != f.Mode && !d.upload[f.Path] {
			changedFiles = append(changedFiles, "~"+f.Path+" (mode)")
			d.upload[f.Path] = true
		}
	}
	wantPaths := map[string]bool{}
	for _, f := range want.Files {
		wantPaths[f.Path] = true
	}
	for _, f := range have.Files {
		if !wantPaths[f.Path] {
			changedFiles = append(changedFiles, "-"+f.Path)
		}
	}
	if len(changedFiles) > 0 {
		sort.Strings(changedFiles)
		d.config = append(d.config, "files "+strings.Join(changedFiles, ", "))
	}
	if have.Unit != want.Unit {
		d.config = append(d.config, "unit "+want.UnitName)
		d.unit = true
	}
	if !sameProgram(have.Version, want.Version) {
		d.upgrade = fmt.Sprintf("%s → %s", resources.AttrOr(have.Version, "(none)"), want.Version)
	}
	if have.PostStart != want.PostStart || !resources.Equal(resources.Normalize(have.DataDirs), resources.Normalize(want.DataDirs)) {
		d.config = append(d.config, "start-up")
	}
	if live, ok := parseLive(prior[svcLive]); ok {
		if live.Active != "active" {
			d.drift = append(d.drift, fmt.Sprintf("%s is %s", want.UnitName, live.Active))
		}
		d.drift = append(d.drift, live.Problems...)
		if live.Unit != resources.SHA256Hex(have.unitText(recorded)) {
			d.drift = append(d.drift, want.UnitName+" "+missingOrModified(live.Unit))
			d.unit = true
		}
		for _, f := range have.Files {
			if wantPaths[f.Path] && !resources.Equal(live.Files[f.Path], recorded[f.Path]) {
				d.drift = append(d.drift, f.Path+" "+missingOrModified(live.Files[f.Path]))
				d.upload[f.Path] = true
			}
		}
	}
	d.restart = len(d.config) > 0 || d.upgrade != "" || len(d.drift) > 0
	d.record = have.Cleanup != want.Cleanup
	return d
}

func missingOrModified(sum string) string {
	if sum == "" {
		return "missing"
	}
	return "modified"
}

// Plan decides a service's change.
func (Service) Plan(_ context.Context, rc *resources.RunContext, prior *resources.Object, desired resources.Desired) (resources.Change, error) {
	ch, err := planService(plannedSchema(), prior, desired)
	if err != nil || ch.Action != resources.Update {
		return ch, err
	}
	if pods := heldStaticPods(rc, prior, desired); len(pods) > 0 {
		ch.Reasons = append(ch.Reasons, resources.Reason{Code: resources.ReasonRestart,
			Detail: "stops the static pods " + strings.Join(podNames(pods), ", ") + " first (the kubelet that started them drains them), and starts them again under the new kubelet"})
	}
	if from, to, ok := containerdMajorMove(rc, prior, desired); ok {
		ch.Reasons = append(ch.Reasons, resources.Reason{Code: resources.ReasonInterrupts,
			Detail: fmt.Sprintf("drains node %s first, and uncordons it after: containerd %d → %d", desired.Node, from, to)})
	}
	return ch, nil
}

func planService(schema resources.Schema, prior *resources.Object, desired resources.Desired) (resources.Change, error) {
	ch := resources.Change{Addr: desired.Addr, Kind: desired.Kind, Node: desired.Node}
	want := parseService(desired.Attrs)
	// The digests decide the plan. After is what state will keep, so a
	// plan shows (and the state records) digests, never the sources; it
	// is built only for a change: a no-op keeps the prior record, and
	// most services of a plan are no-ops.
	digests, _ := want.digests()
	if prior == nil || prior.Attrs == nil || prior.Pending && prior.Attrs[svcUnitName] == nil {
		after := recordedFormDigests(desired.Attrs, want, digests)
		ch.Action = resources.Create
		ch.Reasons = []resources.Reason{{Code: resources.ReasonNew}}
		if prior != nil && prior.Pending {
			ch.Reasons = []resources.Reason{{Code: resources.ReasonPending, Detail: "a previous apply stopped while creating it"}}
		}
		after[svcCreatedDirs], after[svcOwnedData] = resources.Unknown{}, resources.Unknown{}
		ch.After = after
		return ch, nil
	}
	ch.Before = prior.Attrs
	changedRecord := func() resources.Attrs {
		after := recordedFormDigests(desired.Attrs, want, digests)
		for _, k := range []string{svcCreatedDirs, svcOwnedData} {
			after[k] = prior.Attrs[k]
		}
		return after
	}
	for _, name := range []string{svcAddress, svcUnitName} {
		if b, a := resources.AttrString(prior.Attrs[name]), resources.AttrString(desired.Attrs[name]); b != a && !(name == svcUnitName && switchesRunner(parseService(prior.Attrs), want)) {
			ch.Action = resources.Replace
			ch.Reasons = []resources.Reason{{Code: resources.ReasonConfig, Detail: fmt.Sprintf("forces replacement: %s %s → %s", name, b, a)}}
			ch.After = changedRecord()
			return ch, nil
		}
	}
	d := diffServiceDigests(prior.Attrs, want, digests)
	if prior.Pending {
		ch.Reasons = append(ch.Reasons, resources.Reason{Code: resources.ReasonPending, Detail: "a previous apply stopped while changing it; converging"})
		d.restart = true
	}
	if len(d.config) > 0 {
		ch.Reasons = append(ch.Reasons, resources.Reason{Code: resources.ReasonConfig, Detail: strings.Join(d.config, "; ")})
	}
	// (A switch renames the unit: most plans skip parsing the record again.)
	if resources.AttrString(prior.Attrs[svcUnitName]) != want.UnitName {
		if have := parseService(prior.Attrs); switchesRunner(have, want) {
			ch.Reasons = append(ch.Reasons, resources.Reason{Code: resources.ReasonConfig, Detail: "implementation: " + have.runnerText() + " → " + want.runnerText()})
			d.restart = true
		}
	}
	if d.upgrade != "" {
		ch.Reasons = append(ch.Reasons, resources.Reason{Code: resources.ReasonUpgrade, Detail: "version " + d.upgrade})
	}
	if len(d.drift) > 0 {
		ch.Reasons = append(ch.Reasons, resources.Reason{Code: resources.ReasonDrift, Detail: strings.Join(d.drift, "; ")})
	}
	if d.restart {
		ch.Reasons = append(ch.Reasons, resources.Reason{Code: resources.ReasonRestart, Detail: want.restartText()})
	}
	recordOnly := !d.restart && (d.record || !resources.Equal(prior.Attrs[svcConnection], desired.Attrs[svcConnection]))
	if recordOnly {
		ch.Reasons = append(ch.Reasons, resources.Reason{Code: resources.ReasonConfig, Detail: "recorded only (no restart)"})
	}
	if !d.restart && !recordOnly {
		ch.Action = resources.NoOp
		ch.After = prior.Attrs
		return ch, nil
	}
	ch.Action = resources.Update
	ch.After = changedRecord()
	ch.Changed = resources.ChangedAttrs(schema, prior.Attrs, ch.After)
	return ch, nil
}

// Create installs and starts the service.
func (Service) Create(ctx context.Context, rc *resources.RunContext, desired resources.Desired, _ resources.Change) (resources.Attrs, error) {
	return createService(ctx, rc, desired)
}

func createService(ctx context.Context, rc *resources.RunContext, desired resources.Desired) (resources.Attrs, error) {
	conn, err := serviceConn(ctx, rc, desired.Node, desired.Addr, desired.Attrs)
	if err != nil {
		return nil, err
	}
	in := &serviceInstall{rc: rc, conn: conn, addr: desired.Addr, node: desired.Node, svc: parseService(desired.Attrs), unit: true}
	return in.run(ctx, desired.Attrs)
}

// Update rewrites what changed and restarts, or only records.
func (Service) Update(ctx context.Context, rc *resources.RunContext, prior resources.Object, desired resources.Desired, _ resources.Change) (resources.Attrs, error) {
	if pods := heldStaticPods(rc, &prior, desired); len(pods) > 0 {
		return updateHoldingStaticPods(ctx, rc, prior, desired, pods)
	}
	from, to, ok := containerdMajorMove(rc, &prior, desired)
	if !ok {
		return updateService(ctx, rc, prior, desired, nil)
	}
	uncordon, err := drainForContainerd(ctx, rc, desired.Addr, desired.Node, from, to)
	if err != nil {
		return prior.Attrs, err
	}
	attrs, err := updateService(ctx, rc, prior, desired, nil)
	if err != nil {
		return attrs, err // left cordoned: its containerd did not come back
	}
	return attrs, uncordon(ctx)
}

func updateService(ctx context.Context, rc *resources.RunContext, prior resources.Object, desired resources.Desired, beforeRestart func(context.Context, *serviceInstall) error) (resources.Attrs, error) {
	want := parseService(desired.Attrs)
	d := diffService(prior.Attrs, want)
	if !d.restart && !prior.Pending {
		return recordedService(desired.Attrs, prior.Attrs), nil
	}
	conn, err := serviceConn(ctx, rc, desired.Node, desired.Addr, desired.Attrs)
	if err != nil {
		return prior.Attrs, err
	}
	if prior.Pending {
		d.upload, d.unit = nil, true // converge everything
	}
	have := parseService(prior.Attrs)
	var sw *runnerSwitch
	if switchesRunner(have, want) {
		// The old runner stops first (the ports are the same); every file
		// is written again.
		if sw, err = stopRunner(ctx, rc, conn, desired.Addr, have, want); err != nil {
			return prior.Attrs, err
		}
		d.upload, d.unit = nil, true
	}
	in := &serviceInstall{rc: rc, conn: conn, addr: desired.Addr, node: desired.Node, svc: want, prior: prior.Attrs, upload: d.upload, unit: d.unit}
	if beforeRestart != nil {
		in.beforeStart = func(ctx context.Context, _ resources.Attrs) error { return beforeRestart(ctx, in) }
	}
	attrs, err := in.run(ctx, desired.Attrs)
	if sw != nil {
		// The old runner comes back when the new one did not start, and
		// its record with it — keeping the directories the attempt made
		// (recorded before it made them): dropped, the next switch would
		// find them there, take them for someone else's, and a destroy
		// would leave them behind.
		if err = sw.end(ctx, err); err != nil {
			return withCreatedDirs(prior.Attrs, attrs), err
		}
	}
	if err == nil {
		err = removeStaleFiles(ctx, conn, desired.Addr, have, want)
	}
	return attrs, err
}

// Delete stops the service and removes what it recorded.
func (Service) Delete(ctx context.Context, rc *resources.RunContext, prior resources.Object) (resources.Attrs, error) {
	return deleteService(ctx, rc, prior)
}
