package infrastructure_test

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	bootstrapv1 "github.com/eggo-project/eggo/capi/api/bootstrap/v1alpha1"
	infrav1 "github.com/eggo-project/eggo/capi/api/infrastructure/v1alpha1"
	"github.com/eggo-project/eggo/capi/controllers/infrastructure"
	"github.com/eggo-project/eggo/capi/internal/testenv"
)

const (
	nHosts    = 5
	nMachines = 8
	pool      = "p1"
	hostKey   = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIJ0t6ZyVh2x8q7mYk2Qn3m1L8d8oTtQ0M4pXk8o6d9Zr"
)

// TestClaimRace: 8 SSHMachines (each with its Machine) against 5 free
// SSHHosts of their pool, and TWO managers running the infrastructure
// reconcilers at once (leader election off, so both reconcile, each
// with several workers), each as its own user bound to the generated
// ClusterRole (config/rbac/infrastructure/role.yaml). Exactly 5 distinct
// hosts end claimed, each by one machine whose annotation names it and
// whose providerID is eggo://<ns>/<host>/<uid>; 3 machines wait with no
// providerID; hosts outside the selector are never touched. Deleting a
// claimed machine releases its host (Available, no claimRef) and a
// waiting machine then claims it. The test plays core's Machine
// controller (Machines, ownerReferences, the dataSecretName copy).
func TestClaimRace(t *testing.T) {
	e := startEnv(t)
	ctx := testenv.Ctx(t, 5*time.Minute)
	ns := e.API.Namespace(t, "claim-race")
	c := e.Client

	// Every SSHHost version the server sends: no claim may ever pass from
	// one machine to another without being released in between.
	hostWatch := watchHosts(t, e, ns)

	cluster := &clusterv1.Cluster{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "c1"},
		Spec: clusterv1.ClusterSpec{InfrastructureRef: clusterv1.ContractVersionedObjectReference{
			APIGroup: infrav1.GroupVersion.Group, Kind: "SSHCluster", Name: "c1"}}}
	must(t, c.Create(ctx, cluster))
	var hosts []string
	for i := 0; i < nHosts; i++ {
		name := fmt.Sprintf("h%d", i)
		must(t, c.Create(ctx, host(ns, name, pool, map[string]string{"rack": "r1"})))
		hosts = append(hosts, name)
	}
	// Decoys: another pool, a label the selector does not match, a host
	// that needs cleaning.
	must(t, c.Create(ctx, host(ns, "a-other-pool", "p2", map[string]string{"rack": "r1"})))
	must(t, c.Create(ctx, host(ns, "a-other-rack", pool, map[string]string{"rack": "r2"})))
	dirty := host(ns, "a-dirty", pool, map[string]string{"rack": "r1"})
	must(t, c.Create(ctx, dirty))
	dirty.Status.Phase = infrav1.SSHHostNeedsCleanup
	must(t, c.Status().Update(ctx, dirty))

	machines := map[string]*infrav1.SSHMachine{} // by name
	for i := 0; i < nMachines; i++ {
		name := fmt.Sprintf("m%d", i)
		m := &clusterv1.Machine{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name,
			Labels: map[string]string{clusterv1.ClusterNameLabel: cluster.Name}},
			Spec: clusterv1.MachineSpec{ClusterName: cluster.Name, Version: "v1.36.5",
				Bootstrap: clusterv1.Bootstrap{ConfigRef: clusterv1.ContractVersionedObjectReference{
					APIGroup: bootstrapv1.GroupVersion.Group, Kind: "EggoConfig", Name: name}},
				InfrastructureRef: clusterv1.ContractVersionedObjectReference{
					APIGroup: infrav1.GroupVersion.Group, Kind: "SSHMachine", Name: name}}}
		must(t, c.Create(ctx, m))
		sm := &infrav1.SSHMachine{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name,
			Labels: map[string]string{clusterv1.ClusterNameLabel: cluster.Name},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: clusterv1.GroupVersion.String(), Kind: "Machine",
				Name: m.Name, UID: m.UID, Controller: ptr.To(true)}}},
			Spec: infrav1.SSHMachineSpec{HostSelector: infrav1.HostSelector{Pool: pool,
				MatchLabels: map[string]string{"rack": "r1"}}}}
		must(t, c.Create(ctx, sm))
		machines[name] = sm
	}

	// Both managers start together on the same backlog.
	start := time.Now()
	for _, who := range []string{"a", "b"} {
		cfg := e.RoleConfig(t, "infrastructure", "eggo-capi-infrastructure-"+who)
		e.StartManager(t, "infra-"+who, cfg, func(mgr manager.Manager) error {
			return infrastructure.Setup(mgr, testenv.ControllerOptions())
		})
	}

	// The claims settle before any bootstrap data exists: 5 hosts
	// claimed, 3 machines with none, and no providerID yet.
	var s state
	testenv.Eventually(t, time.Minute, "5 claims and 3 machines waiting", func() (bool, string) {
		s = read(t, e, ns)
		return len(s.claimedBy) == nHosts && s.count(noHost) == nMachines-nHosts && s.count(waitingForBootstrap) == nHosts, s.String()
	})
	t.Logf("claims settled after %s", time.Since(start).Round(time.Millisecond))
	s.checkClaims(t, ns, hosts, false)

	// Core copies the bootstrap data secret's name to every Machine.
	for name := range machines {
		m := &clusterv1.Machine{}
		must(t, c.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, m))
		m.Spec.Bootstrap.DataSecretName = ptr.To(name)
		must(t, c.Update(ctx, m))
	}
	testenv.Eventually(t, time.Minute, "5 providerIDs", func() (bool, string) {
		s = read(t, e, ns)
		return s.count(withProviderID) == nHosts && s.count(noHost) == nMachines-nHosts, s.String()
	})
	testenv.Consistently(t, 2*time.Second, "the claims hold", func() (bool, string) {
		s2 := read(t, e, ns)
		return s2.String() == s.String(), "changed:\n" + s2.String() + "\nwas:\n" + s.String()
	})
	s.checkClaims(t, ns, hosts, true)

	// The waiting machines are paused: they leave the released host alone
	// until they are unpaused, so its release is seen as it is.
	var waiting []string
	for name, m := range s.machines {
		if m.Spec.ProviderID == "" {
			waiting = append(waiting, name)
			setPaused(t, e, ns, name, true)
		}
	}
	sort.Strings(waiting)
	victimHost := hosts[2]
	victim := s.claimedBy[victimHost]
	must(t, c.Delete(ctx, &infrav1.SSHMachine{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: victim}}))
	testenv.Eventually(t, 30*time.Second, "machine "+victim+" gone and "+victimHost+" released", func() (bool, string) {
		s = read(t, e, ns)
		_, there := s.machines[victim]
		h := s.hosts[victimHost]
		return !there && h.Spec.ClaimRef == nil && h.Status.Phase == infrav1.SSHHostAvailable,
			fmt.Sprintf("machine there %v, host claim %+v phase %q", there, h.Spec.ClaimRef, h.Status.Phase)
	})
	testenv.Consistently(t, time.Second, "paused machines claim nothing", func() (bool, string) {
		h := read(t, e, ns).hosts[victimHost]
		return h.Spec.ClaimRef == nil, fmt.Sprintf("claimed by %+v", h.Spec.ClaimRef)
	})
	for _, name := range waiting {
		setPaused(t, e, ns, name, false)
	}
	testenv.Eventually(t, 30*time.Second, "a waiting machine claims "+victimHost, func() (bool, string) {
		s = read(t, e, ns)
		return len(s.claimedBy) == nHosts && s.count(withProviderID) == nHosts && s.count(noHost) == len(waiting)-1, s.String()
	})
	if taker := s.claimedBy[victimHost]; !contains(waiting, taker) {
		t.Errorf("%s taken by %q, want one of the waiting %v", victimHost, taker, waiting)
	}
	s.checkClaims(t, ns, hosts, true)
	hostWatch.check(t)
}

// host is a free SSHHost of pool with labels.
func host(ns, name, pool string, labels map[string]string) *infrav1.SSHHost {
	return &infrav1.SSHHost{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: labels},
		Spec: infrav1.SSHHostSpec{Pool: pool, Address: "10.0.0." + fmt.Sprint(len(name)+int(name[len(name)-1])),
			SSHKeySecretRef: infrav1.SecretReference{Name: "key"}, HostKey: hostKey}}
}

func setPaused(t *testing.T, e *testenv.Env, ns, name string, paused bool) {
	t.Helper()
	patch := `{"metadata":{"annotations":{"cluster.x-k8s.io/paused":""}}}`
	if !paused {
		patch = `{"metadata":{"annotations":{"cluster.x-k8s.io/paused":null}}}`
	}
	sm := &infrav1.SSHMachine{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	must(t, e.Client.Patch(testenv.Ctx(t, 10*time.Second), sm, client.RawPatch(types.MergePatchType, []byte(patch))))
	if paused {
		testenv.Eventually(t, 30*time.Second, name+" Paused", func() (bool, string) {
			cur := &infrav1.SSHMachine{}
			must(t, e.Client.Get(testenv.Ctx(t, 10*time.Second), client.ObjectKeyFromObject(sm), cur))
			return meta.IsStatusConditionTrue(cur.Status.Conditions, clusterv1.PausedCondition), fmt.Sprintf("%+v", cur.Status.Conditions)
		})
	}
}

// state is the namespace's SSHMachines and SSHHosts, read from the server.
type state struct {
	machines  map[string]*infrav1.SSHMachine
	hosts     map[string]*infrav1.SSHHost
	claimedBy map[string]string // host → machine name, by the machine UID in its claimRef
}

func read(t *testing.T, e *testenv.Env, ns string) state {
	t.Helper()
	ctx := testenv.Ctx(t, 10*time.Second)
	ml, hl := &infrav1.SSHMachineList{}, &infrav1.SSHHostList{}
	must(t, e.Client.List(ctx, ml, client.InNamespace(ns)))
	must(t, e.Client.List(ctx, hl, client.InNamespace(ns)))
	s := state{machines: map[string]*infrav1.SSHMachine{}, hosts: map[string]*infrav1.SSHHost{}, claimedBy: map[string]string{}}
	byUID := map[types.UID]string{}
	for i := range ml.Items {
		s.machines[ml.Items[i].Name] = &ml.Items[i]
		byUID[ml.Items[i].UID] = ml.Items[i].Name
	}
	for i := range hl.Items {
		h := &hl.Items[i]
		s.hosts[h.Name] = h
		if h.Spec.ClaimRef != nil {
			name, ok := byUID[types.UID(h.Spec.ClaimRef.MachineUID)]
			if !ok {
				name = "?uid=" + h.Spec.ClaimRef.MachineUID
			}
			s.claimedBy[h.Name] = name
		}
	}
	return s
}

type machineState int

const (
	noHost              machineState = iota // HostClaimed=False NoHostAvailable
	waitingForBootstrap                     // claimed, waiting for dataSecretName
	withProviderID                          // providerID set, status written
	other                                   // in between
)

func (s state) of(m *infrav1.SSHMachine) machineState {
	claimed := meta.FindStatusCondition(m.Status.Conditions, infrav1.SSHMachineHostClaimedCondition)
	switch {
	case m.Spec.ProviderID != "" && claimed != nil && claimed.Status == metav1.ConditionTrue &&
		meta.FindStatusCondition(m.Status.Conditions, infrav1.ReadyCondition).Reason == infrastructure.WaitingForNodeJoinedReason:
		return withProviderID // and its status written after it
	case claimed != nil && claimed.Status == metav1.ConditionFalse && claimed.Reason == infrastructure.NoHostAvailableReason:
		return noHost
	case claimed != nil && claimed.Status == metav1.ConditionTrue &&
		meta.FindStatusCondition(m.Status.Conditions, infrav1.ReadyCondition).Reason == infrastructure.WaitingForBootstrapReason:
		return waitingForBootstrap
	}
	return other
}

func (s state) count(want machineState) int {
	n := 0
	for _, m := range s.machines {
		if s.of(m) == want {
			n++
		}
	}
	return n
}

func (s state) String() string {
	var lines []string
	for name, m := range s.machines {
		var conds []string
		for _, c := range m.Status.Conditions {
			conds = append(conds, c.Type+"="+string(c.Status)+"/"+c.Reason)
		}
		lines = append(lines, fmt.Sprintf("machine %s host=%q providerID=%q %v", name,
			m.Annotations[infrav1.HostAnnotation], m.Spec.ProviderID, conds))
	}
	for name, h := range s.hosts {
		lines = append(lines, fmt.Sprintf("host %s phase=%q claimedBy=%q", name, h.Status.Phase, s.claimedBy[name]))
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// checkClaims: the claimed hosts are all of hosts (none else), each held
// by a distinct machine whose annotation names it, phase Claimed, with
// the Cluster and Machine in its claimRef; every machine not holding one
// has no providerID; with providerIDs, each is eggo://<ns>/<host>/<uid>
// of the host it holds, with its addresses.
func (s state) checkClaims(t *testing.T, ns string, hosts []string, providerIDs bool) {
	t.Helper()
	holders := map[string]string{}
	for _, h := range hosts {
		m, ok := s.claimedBy[h]
		if !ok {
			t.Errorf("host %s is not claimed", h)
			continue
		}
		if other, dup := holders[m]; dup {
			t.Errorf("machine %s holds both %s and %s", m, other, h)
		}
		holders[m] = h
		host := s.hosts[h]
		sm := s.machines[m]
		if sm == nil {
			t.Errorf("host %s is claimed by %s, which is not an SSHMachine", h, m)
			continue
		}
		c := host.Spec.ClaimRef
		if c.ClusterName != "c1" || c.ClusterUID == "" || c.Purpose != infrav1.ClaimMachine || c.MachineName != m {
			t.Errorf("host %s: claimRef %+v", h, c)
		}
		if host.Status.Phase != infrav1.SSHHostClaimed {
			t.Errorf("host %s: phase %q, want Claimed", h, host.Status.Phase)
		}
		if got := sm.Annotations[infrav1.HostAnnotation]; got != h {
			t.Errorf("machine %s holds %s but its annotation says %q", m, h, got)
		}
		if providerIDs {
			if want := "eggo://" + ns + "/" + h + "/" + string(sm.UID); sm.Spec.ProviderID != want {
				t.Errorf("machine %s: providerID %q, want %q", m, sm.Spec.ProviderID, want)
			}
			want := []clusterv1.MachineAddress{{Type: clusterv1.MachineInternalIP, Address: host.Spec.Address},
				{Type: clusterv1.MachineHostName, Address: h}}
			if fmt.Sprint(sm.Status.Addresses) != fmt.Sprint(want) {
				t.Errorf("machine %s: addresses %v, want %v", m, sm.Status.Addresses, want)
			}
			if sm.Status.Initialization.Provisioned != nil {
				t.Errorf("machine %s: provisioned set (%v) before any node joined", m, *sm.Status.Initialization.Provisioned)
			}
		} else if sm.Spec.ProviderID != "" {
			t.Errorf("machine %s: providerID %q before its bootstrap data", m, sm.Spec.ProviderID)
		}
	}
	for h, m := range s.claimedBy {
		if !contains(hosts, h) {
			t.Errorf("host %s (outside the selector or not Available) claimed by %s", h, m)
		}
	}
	for name, m := range s.machines {
		if _, holds := holders[name]; holds {
			continue
		}
		if m.Spec.ProviderID != "" || len(m.Status.Addresses) != 0 {
			t.Errorf("machine %s holds no host but has providerID %q addresses %v", name, m.Spec.ProviderID, m.Status.Addresses)
		}
		if !meta.IsStatusConditionFalse(m.Status.Conditions, infrav1.SSHMachineHostClaimedCondition) {
			t.Errorf("machine %s holds no host: HostClaimed %+v", name, m.Status.Conditions)
		}
	}
}

// hostWatch records every version of the namespace's SSHHosts.
type hostWatch struct {
	mu       sync.Mutex
	last     map[string]string // host → machine UID last seen claiming it
	problems []string
	events   int
}

func watchHosts(t *testing.T, e *testenv.Env, ns string) *hostWatch {
	t.Helper()
	wc, err := client.NewWithWatch(e.API.Config, client.Options{Scheme: e.Scheme})
	must(t, err)
	w, err := wc.Watch(testenv.Ctx(t, 10*time.Minute), &infrav1.SSHHostList{}, client.InNamespace(ns))
	must(t, err)
	t.Cleanup(w.Stop)
	hw := &hostWatch{last: map[string]string{}}
	go func() {
		for ev := range w.ResultChan() {
			h, ok := ev.Object.(*infrav1.SSHHost)
			if !ok || ev.Type == watch.Error {
				continue
			}
			hw.mu.Lock()
			hw.events++
			uid := ""
			if h.Spec.ClaimRef != nil {
				uid = h.Spec.ClaimRef.MachineUID
			}
			if prev := hw.last[h.Name]; prev != "" && uid != "" && prev != uid {
				hw.problems = append(hw.problems, fmt.Sprintf("host %s passed from machine %s to %s without a release", h.Name, prev, uid))
			}
			hw.last[h.Name] = uid
			hw.mu.Unlock()
		}
	}()
	return hw
}

func (hw *hostWatch) check(t *testing.T) {
	t.Helper()
	hw.mu.Lock()
	defer hw.mu.Unlock()
	t.Logf("watched %d SSHHost changes", hw.events)
	for _, p := range hw.problems {
		t.Error(p)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
