# eggo — `make help` lists the targets.
SHELL := /bin/bash
export PATH := /usr/local/go/bin:$(PATH)
# Static and -trimpath, as eggo's own image builds it (tools/bundle/scripts/
# eggo-image.sh): make build's eggo, the tests' packages and eggo's image
# are then one compile, not two (cold, the image's own took 2 min 53 s).
# The race step sets CGO_ENABLED=1, which -race needs.
export GOFLAGS ?= -mod=mod -trimpath
export CGO_ENABLED ?= 0
BIN       := bin/eggo
CACHE     ?= /var/cache/eggo
DEMO_ID   := demo
DEMO_DIR  := examples/demo
# The bundle examples/demo/main.hcl names: the default minor's.
DEMO_VERSION := v1.36.5

.PHONY: help build controller crds crds-check check test bench bench-scale fuzz deps demo demo-bundle demo-down testbed-down clean conformance conformance-smoke upgrade-chain

include bundle.mk

help: ## List the targets
	@grep -hE '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-12s %s\n", $$1, $$2}'

build: ## Build bin/eggo
	go build -o $(BIN) .

controller: ## Build bin/eggo-controller (the GitOps controller and its Jobs' command)
	go build -o bin/eggo-controller ./cmd/eggo-controller

# The CRDs and deep copies come from the Go types of controller/api; the
# generated files are committed and `make check` fails when they are stale.
CONTROLLER_GEN := go run sigs.k8s.io/controller-tools/cmd/controller-gen@v0.17.3
CRD_DIR        := controller/config/crd
RBAC_DIR       := controller/config/rbac
crds: ## Generate the GitOps controller's CRDs, deep copies and role from controller/
	$(CONTROLLER_GEN) object paths=./controller/api/...
	$(CONTROLLER_GEN) crd paths=./controller/api/... output:crd:artifacts:config=$(CRD_DIR)
	$(CONTROLLER_GEN) rbac:roleName=eggo-controller paths=./controller output:rbac:artifacts:config=$(RBAC_DIR)

crds-check: ## Fail if the committed CRDs or deep copies are not what controller-gen makes now
	@tmp=$$(mktemp -d); trap 'rm -rf '"$$tmp" EXIT; \
	$(CONTROLLER_GEN) crd paths=./controller/api/... output:crd:artifacts:config=$$tmp && \
	diff -r $(CRD_DIR) $$tmp || { echo "$(CRD_DIR) is stale: run make crds"; exit 1; }; \
	$(CONTROLLER_GEN) rbac:roleName=eggo-controller paths=./controller output:rbac:artifacts:config=$$tmp/rbac && \
	diff $(RBAC_DIR)/role.yaml $$tmp/rbac/role.yaml || { echo "$(RBAC_DIR)/role.yaml is stale: run make crds"; exit 1; }; \
	cp controller/api/v1alpha1/zz_generated.deepcopy.go $$tmp/deepcopy.go && \
	$(CONTROLLER_GEN) object paths=./controller/api/... && \
	if ! diff $$tmp/deepcopy.go controller/api/v1alpha1/zz_generated.deepcopy.go; then \
	  cp $$tmp/deepcopy.go controller/api/v1alpha1/zz_generated.deepcopy.go; echo "deep copies are stale: run make crds"; exit 1; fi

deps: ## Install what tests and the demo need (Debian packages), if missing
	@need=""; \
	for p in openssh-server openssh-client debootstrap systemd-container iproute2 sudo prometheus etcd-server etcd-client; do \
	  dpkg -s $$p >/dev/null 2>&1 || need="$$need $$p"; done; \
	if [ -n "$$need" ]; then \
	  echo "installing:$$need"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$need >/dev/null && \
	  { systemctl disable --now etcd 2>/dev/null || true; }; fi
	@mkdir -p /run/sshd

check: ## gofmt, go vet, a tidy go.mod, the import boundaries and the code shape (file and function length)
	@go mod tidy -diff >/dev/null || { echo "go.mod/go.sum are not tidy: run go mod tidy"; go mod tidy -diff; exit 1; }
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	go vet ./...
	go test -count=1 -run 'TestImportBoundaries|TestCodeShape|TestCLIWithoutControllerRuntime' .
	@$(MAKE) --no-print-directory crds-check

# make test's order and why: tools/maketest/test.sh. A systemd container
# takes ~15 inotify instances: the run raises root's limit to
# INOTIFY_INSTANCES and puts it back at the end.
INOTIFY_INSTANCES := 1024
# The engine's testbed tests that boot no Kubernetes run once, in the race
# step (the race detector over real SSH, hooks and host keys), not twice.
RACE_ONLY := TestHostOnTestbed|TestHooksOnTestbed|TestHostKeysOnTestbed
# Cluster tests at once, the GitOps test's included (it holds one slot
# while it runs): with four (the engine's three beside it), the load reached
# 35–80 on two cores, and static-pod etcd's roll lost a polled request to
# "leader changed" and an sshd refused a session, in two runs out of two.
E2E_CLUSTERS := 3
test: deps check bundle capi-parts ## All tests: unit, race, real sshd, testbed end to end (real Kubernetes clusters, Cluster API's among them), the conformance smokes; each step says its time
	@RACE_ONLY='$(RACE_ONLY)' CONFORMANCE_SMOKE='$(CONFORMANCE_SMOKE)' INOTIFY_INSTANCES=$(INOTIFY_INSTANCES) \
	E2E_CLUSTERS=$(E2E_CLUSTERS) MAKE='$(MAKE)' EGGO_CAPI_PARTS=$(CACHE)/capi/$(CAPI_VERSION) tools/maketest/test.sh

bench: ## Benchmarks: 1000-node plans, graph walk overhead, state encode/read
	go test -run '^$$' -bench . -benchmem -benchtime 5x ./engine/... ./graph/... ./state/... ./resources/... ./engine/config/...

# A count (20000x), not a duration, in CI: go1.26's fuzz coordinator can
# report "context deadline exceeded" at a duration's end with no failing
# input (golang/go#75804, fixed in go1.27).
# FuzzNesting's inputs are files of up to 256 KiB, each loaded in a tenth
# of a second or more: it gets its own, smaller count.
FUZZTIME ?= 30s
FUZZTIME_NESTING ?= $(FUZZTIME)
fuzz: ## Short fuzz runs of the HCL loader (and its nesting limit), the state reader and the terminal escaper
	go test -run '^$$' -fuzz FuzzLoad -fuzztime $(FUZZTIME) ./engine/config/
	go test -run '^$$' -fuzz FuzzNesting -fuzztime $(FUZZTIME_NESTING) ./engine/config/
	go test -run '^$$' -fuzz FuzzSafe -fuzztime $(FUZZTIME) ./internal/text/
	go test -run '^$$' -fuzz FuzzRead -fuzztime $(FUZZTIME) ./state/

# The demo's bundle only: the other versions (make bundle) are the tests'.
demo-bundle:
	@$(BUNDLE_SRC)/scripts/build.sh $(CACHE) $(DEMO_VERSION)

demo: deps build demo-bundle ## Bring up 3 testbed hosts and deploy Kubernetes (examples/demo) onto them
	go run ./tools/testbed up -n 3 -id $(DEMO_ID) -containers -names master-0,worker-0,worker-1 -inventory $(DEMO_DIR)/testbed.json
	./$(BIN) -chdir=$(DEMO_DIR) plan -var-file=testbed.eggovars
	./$(BIN) -chdir=$(DEMO_DIR) apply -auto-approve -var-file=testbed.eggovars
	./$(BIN) -chdir=$(DEMO_DIR) apply -auto-approve -var-file=testbed.eggovars
	./$(BIN) -chdir=$(DEMO_DIR) state list -var-file=testbed.eggovars
	$(CACHE)/bundle/$(DEMO_VERSION)/amd64/usr/local/bin/kubectl --kubeconfig $(DEMO_DIR)/demo.kubeconfig get nodes -o wide
	@echo; echo "The cluster is up: kubectl --kubeconfig $(DEMO_DIR)/demo.kubeconfig …; 'make demo-down' destroys it."

demo-down: build ## Destroy the demo and tear its testbed down
	-./$(BIN) -chdir=$(DEMO_DIR) destroy -auto-approve -var-file=testbed.eggovars
	go run ./tools/testbed down -id $(DEMO_ID)

testbed-down: ## Tear down every testbed on this machine (also after a crashed test)
	go run ./tools/testbed down -all

clean: ## Remove build output
	rm -rf bin

BENCH_SIZES ?= 1000,5000,10000
bench-scale: build ## Time bin/eggo plan -refresh=false on generated 1k/5k/10k-node clusters (empty, no-op, no-op with sealed secrets, a join)
	@command -v /usr/bin/time >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq time >/dev/null; }
	go run ./tools/benchscale -eggo $(BIN) -sizes $(BENCH_SIZES)

# The Kubernetes conformance suite against a cluster eggo deploys on the
# testbed (a load balancer, three masters, two workers): hours on 2 cores.
# CONFORMANCE_FOCUS=REGEX runs fewer (the parallel phase only).
IMPLEMENTATION      ?= binary
ETCD_IMPLEMENTATION ?= binary
CONFORMANCE_FOCUS   ?=
RESULTS             ?= conformance-results
conformance: deps build bundle conformance-images ## Deploy a cluster on the testbed and run the conformance tests against it (results in $(RESULTS); CONFORMANCE_VERSION=v1.37.2 for the newest minor)
	go run ./tools/conformance/cmd/conformance -eggo $(BIN) -version $(CONFORMANCE_VERSION) -implementation $(IMPLEMENTATION) -etcd-implementation $(ETCD_IMPLEMENTATION) -results $(RESULTS) \
	  $(if $(CONFORMANCE_FOCUS),-focus '$(CONFORMANCE_FOCUS)' -serial=false)

# The path a cluster made at 1.31 takes to the default minor, run on three
# testbed hosts (website/kubernetes.md, "From 1.31"); not part of make test.
CHAIN_VERSIONS ?= v1.31.4 v1.32.9 v1.33.13 v1.34.12 v1.35.8 v1.36.5
upgrade-chain: deps build ## Deploy 1.31 on the testbed and upgrade it one minor at a time to the default, checking each step (make bundle BUNDLE_VERSIONS="$(CHAIN_VERSIONS)" first)
	go run ./tools/upgradechain -eggo $(BIN) -versions "$(CHAIN_VERSIONS)"

# The smoke make test runs, once for each implementation (the binary one
# against the cluster the GitOps end-to-end test's Jobs build, the pod one,
# with static-pod etcd, against TestEtcdStaticPodsOnTestbed's cluster; make
# conformance-smoke runs it on a cluster of its own): 32 conformance tests of v1.36.5 on the same cluster, the parallel phase only — the Networking
# Granular Checks, every DNS and Service test, and a sample of sig-apps,
# sig-node and sig-api-machinery (with a webhook and an aggregated API: the
# apiserver reaching pods).
CONFORMANCE_SMOKE := \[sig-network\] Networking Granular Checks|\[sig-network\] DNS |\[sig-network\] Services |Deployment RollingUpdateDeployment|Pods should be submitted and removed|ResourceQuota should create a ResourceQuota and capture the life of a secret|AdmissionWebhook .*should mutate pod and apply defaults after mutation|Aggregator Should be able to support the 1.17 Sample API Server
conformance-smoke: deps build bundle conformance-images ## The conformance smoke (32 tests; make test runs them on its own clusters) on a cluster of its own (results in $(RESULTS)-smoke)
	go run ./tools/conformance/cmd/conformance -eggo $(BIN) -implementation $(IMPLEMENTATION) -etcd-implementation $(ETCD_IMPLEMENTATION) -results $(RESULTS)-smoke \
	  -focus '$(CONFORMANCE_SMOKE)' -serial=false
