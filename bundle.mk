# bundle.mk — eggo's offline Kubernetes bundle for tests and the demo
# (tools/bundle/README.md). Included by the Makefile.
#
#   make bundle                     build or reuse every version; prints the bundle directory last
#   make bundle BUNDLE_VERSIONS=v1.31.4 CACHE=/tmp/c
#                                   (what each minor's bundle holds: tools/bundle/minors.tsv)
#   make conformance-tools          build or reuse e2e.test, ginkgo and agnhost; prints their directory last
#   make conformance-images         build or reuse the conformance tests' image archives; prints their directory last
#   make eggo-image                 build or reuse eggo's own image (not part of the bundle); prints its archive last
#   make management-bundle          a bundle copy carrying eggo's image, to deploy a GitOps management cluster; prints it last
#   make capi-parts                 build or reuse Cluster API's core manager, clusterctl, its image and core components; prints their directory last
#   make bundle-runtime             build or reuse only the newest minor's containerd 2 and runc (a bundle part); prints their directory last
#   make bundle-test                the bundle tools' own tests
#   make bundle-gomod V=v1.31.5     write the test-only module for another Kubernetes version
#   make bundle-clean               forget the built bundles (the Go caches stay)

CACHE           ?= /var/cache/eggo
# One bundle per version; what each minor's holds: tools/bundle/minors.tsv.
# The default minor (1.36) and the newest (1.37) the e2e upgrades it to.
# The other minors' bundles are built on request (BUNDLE_VERSIONS=...).
BUNDLE_VERSIONS ?= v1.36.5 v1.37.2
BUNDLE_SRC      := tools/bundle
CONFORMANCE_VERSION ?= v1.36.5

# containerd 2 and the runc its release names, static, from their Go
# modules: the runtime of the newest minor's row in minors.tsv (build.sh
# builds it as a part of that minor's bundle; this target builds only it).
BUNDLE_RUNTIME     := $(shell awk '!/^\#/ && NF == 7 && $$2 != "debian" {r = $$2} END {print r}' $(BUNDLE_SRC)/minors.tsv)
CONTAINERD_VERSION ?= $(firstword $(subst /, ,$(BUNDLE_RUNTIME)))
RUNC_VERSION       ?= $(lastword $(subst /, ,$(BUNDLE_RUNTIME)))

.PHONY: bundle bundle-runtime eggo-image management-bundle conformance-tools conformance-images bundle-test bundle-gomod bundle-clean

bundle: ## Build (or reuse) the offline bundles in $(CACHE)/bundle/VERSION; prints $(CACHE)/bundle last
	@$(BUNDLE_SRC)/scripts/build.sh $(CACHE) $(BUNDLE_VERSIONS)

# eggo's own image (eggo, eggo-controller and eggo-capi, static, one layer): what an
# EggoCluster's Jobs and the controller's Deployment run. Not a bundle part:
# it changes with every eggo commit, the bundle with a Kubernetes version
# (README.md, "eggo's own image"). Checked in a throwaway containerd when
# the bundle's Debian binaries are there.
EGGO_IMAGE_VERIFY := $(if $(wildcard $(CACHE)/bundle/.parts/debs/.eggo-bundle-stamp),$(CACHE)/bundle/.parts/debs/usr/local/bin)
eggo-image: ## Build (or reuse) eggo's own image at $(CACHE)/eggo-image/KEY/eggo.tar (eggo.io/eggo:<git describe>); prints it last
	@$(BUNDLE_SRC)/scripts/eggo-image.sh $(CACHE)/eggo-image $(EGGO_IMAGE_VERIFY)

# A GitOps management cluster deployed by eggo gets eggo's image from its
# bundle: a copy of a bundle (hard links) with eggo.tar among the images
# containerd imports at start (website/gitops.md): the default minor's.
MANAGEMENT_VERSION ?= v1.36.5
management-bundle: bundle ## A copy of the $(MANAGEMENT_VERSION) bundle with eggo's image, at $(CACHE)/management-bundle/$(MANAGEMENT_VERSION); prints it last
	@image=$$($(BUNDLE_SRC)/scripts/eggo-image.sh $(CACHE)/eggo-image $(EGGO_IMAGE_VERIFY) | tail -1) && \
	$(BUNDLE_SRC)/scripts/management-bundle.sh $(CACHE)/bundle/$(MANAGEMENT_VERSION) "$$image" $(CACHE)/management-bundle/$(MANAGEMENT_VERSION)

# Heavy (e2e.test is a long compile; cached): make test builds it for the conformance smoke.
conformance-tools: ## Build (or reuse) e2e.test, ginkgo and agnhost in $(CACHE)/conformance/$(CONFORMANCE_VERSION); prints it last
	@$(BUNDLE_SRC)/scripts/conformance.sh $(CONFORMANCE_VERSION) $(CACHE)/conformance/$(CONFORMANCE_VERSION)

# The images' agnhost is conformance-tools' own; cached like the tools.
conformance-images: conformance-tools ## Build (or reuse) the images the [Conformance] tests run, as OCI archives in $(CACHE)/conformance/$(CONFORMANCE_VERSION)/images; prints it last
	@$(BUNDLE_SRC)/scripts/conformance-images.sh $(CONFORMANCE_VERSION) $(CACHE)/conformance/$(CONFORMANCE_VERSION)/images $(CACHE)/conformance/$(CONFORMANCE_VERSION)

bundle-runtime: ## Build (or reuse) containerd $(CONTAINERD_VERSION) and runc $(RUNC_VERSION) at $(CACHE)/bundle/.parts/runtime-$(CONTAINERD_VERSION); prints it last
	@$(BUNDLE_SRC)/scripts/runtime.sh $(CACHE)/bundle/.parts/runtime-$(CONTAINERD_VERSION) $(CONTAINERD_VERSION) $(RUNC_VERSION)
	@echo $(CACHE)/bundle/.parts/runtime-$(CONTAINERD_VERSION)

# The etcd modules tested are the releases the bundles of BUNDLE_VERSIONS
# build (their minors' rows): every module links one main.go, and each other
# release would cost its dependencies' compile (a minute or two) for no new
# line tested.
bundle-test: ## Test the bundle tools (pause program, OCI image archive writer, the minors table, the etcd program's environment file for each etcd release the default bundles build, eggo's own image)
	cd $(BUNDLE_SRC) && go vet ./... && go test -count=1 ./...
	@$(BUNDLE_SRC)/scripts/etcd-program-test.sh $$(for v in $(BUNDLE_VERSIONS); do m=$${v#v}; m=$${m%.*}; \
	    awk -v m="$$m" '$$1 == m && $$3 != "debian" {print $$3} $$1 == m {print $$4}' $(BUNDLE_SRC)/minors.tsv; done | sort -u)

bundle-gomod: ## Write tools/bundle/kube/$(V): the Go module that builds Kubernetes $(V)
	@test -n "$(V)" || { echo "usage: make bundle-gomod V=v1.31.N"; exit 2; }
	$(BUNDLE_SRC)/kube/gen-gomod.sh $(V)

bundle-clean: ## Remove the built bundles and their parts (keeps the Go build and module caches)
	rm -rf $(CACHE)/bundle

# Cluster API's core provider for an offline `clusterctl init` (the
# management cluster, capi/DESIGN.md): the manager and clusterctl from the
# tools-only module tools/bundle/capi, the manager's image, and
# core-components.yaml and metadata.yaml in clusterctl's local repository
# layout. make test builds it first (the GitOps end-to-end test's
# management cluster becomes Cluster API's; capi/coretest runs core beside
# eggo's providers). Made with the v1.36.5 bundle's kubectl; checked in a
# throwaway containerd as eggo-image is.
CAPI_VERSION ?= v1.14.2
CAPI_KUBECTL ?= $(CACHE)/bundle/v1.36.5/amd64/usr/local/bin/kubectl
capi-parts: ## Build (or reuse) Cluster API $(CAPI_VERSION)'s manager, clusterctl, image and core components in $(CACHE)/capi/$(CAPI_VERSION); prints it last
	@CAPI_VERSION=$(CAPI_VERSION) CAPI_KUBECTL=$(CAPI_KUBECTL) $(BUNDLE_SRC)/scripts/capi.sh $(CACHE)/capi/$(CAPI_VERSION) $(EGGO_IMAGE_VERIFY)
.PHONY: capi-parts
