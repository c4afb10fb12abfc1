package api_test

import (
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/cluster-api/util/contract"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// contractLabel is the label core reads on a provider's CRD: the key
// names the contract (the pinned core API's version, v1beta2), the
// value our versions that speak it.
var contractLabel = clusterv1.GroupVersion.Group + "/" + clusterv1.GroupVersion.Version

const apiPackages = "github.com/eggo-project/eggo/capi/api/"

// eggoKinds are the kinds (not lists) the scheme knows of this module's
// API packages (not the options and events every group gets).
func (e *env) eggoKinds() []schema.GroupVersionKind {
	var kinds []schema.GroupVersionKind
	for gvk, typ := range e.scheme.AllKnownTypes() {
		if strings.HasPrefix(typ.PkgPath(), apiPackages) && !strings.HasSuffix(gvk.Kind, "List") {
			kinds = append(kinds, gvk)
		}
	}
	sort.Slice(kinds, func(i, j int) bool { return kinds[i].String() < kinds[j].String() })
	return kinds
}

// Every kind of the three groups has a CRD, named as core computes it,
// labelled with the v1beta2 contract, namespaced, with the status
// subresource, and the server holds it as committed.
func (e *env) testCRDsFollowTheContract(t *testing.T) {
	ctx := ctxFor(t)
	byName := map[string]*apiextv1.CustomResourceDefinition{}
	for _, crd := range e.eggoCRDs {
		byName[crd.Name] = crd
	}
	kinds := e.eggoKinds()
	if len(kinds) != 9 {
		t.Errorf("the scheme knows %d kinds of %s*, want 9: %v", len(kinds), apiPackages, kinds)
	}
	for _, gvk := range kinds {
		if !slices.Contains(eggoGroups, gvk.Group) || gvk.Version != "v1alpha1" {
			t.Errorf("%s: not in %v, v1alpha1", gvk, eggoGroups)
		}
	}
	if len(e.eggoCRDs) != len(kinds) {
		t.Errorf("%d CRDs for %d kinds", len(e.eggoCRDs), len(kinds))
	}
	for _, gvk := range kinds {
		name := contract.CalculateCRDName(gvk.Group, gvk.Kind)
		crd := byName[name]
		if crd == nil {
			t.Errorf("%s: no CRD named %s (CalculateCRDName) in %s", gvk, name, eggoCRDDir)
			continue
		}
		if crd.Spec.Group != gvk.Group || crd.Spec.Names.Kind != gvk.Kind || crd.Spec.Names.ListKind != gvk.Kind+"List" {
			t.Errorf("%s: CRD %s is of %s %s/%s", gvk, name, crd.Spec.Group, crd.Spec.Names.Kind, crd.Spec.Names.ListKind)
		}
		if crd.Spec.Scope != apiextv1.NamespaceScoped {
			t.Errorf("%s: scope %s", name, crd.Spec.Scope)
		}
		live := &apiextv1.CustomResourceDefinition{}
		if err := e.c.Get(ctx, client.ObjectKey{Name: name}, live); err != nil {
			t.Fatalf("%s on the server: %v", name, err)
		}
		if got := live.Labels[contractLabel]; got != gvk.Version {
			t.Errorf("%s: label %s = %q on the server, want %q (labels %v)", name, contractLabel, got, gvk.Version, live.Labels)
		}
		if len(live.Spec.Versions) != 1 || live.Spec.Versions[0].Name != gvk.Version || !live.Spec.Versions[0].Served || !live.Spec.Versions[0].Storage {
			t.Errorf("%s: versions %+v, want %s served and stored", name, live.Spec.Versions, gvk.Version)
			continue
		}
		sub := live.Spec.Versions[0].Subresources
		if sub == nil || sub.Status == nil {
			t.Errorf("%s: no status subresource", name)
		}
		wantScale := gvk.Kind == "EggoControlPlane"
		if (sub != nil && sub.Scale != nil) != wantScale {
			t.Errorf("%s: scale subresource %+v, want one: %v", name, sub, wantScale)
		}
		if !equality.Semantic.DeepEqual(live.Spec.Versions[0].Schema, crd.Spec.Versions[0].Schema) {
			t.Errorf("%s: the server's schema differs from the committed one", name)
		}
	}
	scale := byName["eggocontrolplanes.controlplane.eggo.io"].Spec.Versions[0].Subresources.Scale
	want := apiextv1.CustomResourceSubresourceScale{SpecReplicasPath: ".spec.replicas", StatusReplicasPath: ".status.replicas"}
	sel := ".status.selector"
	want.LabelSelectorPath = &sel
	if scale == nil || !reflect.DeepEqual(*scale, want) {
		t.Errorf("EggoControlPlane scale subresource %+v, want %+v", scale, want)
	}
}
