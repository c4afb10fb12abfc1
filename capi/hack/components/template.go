package main

// clusterTemplate is what `clusterctl generate cluster NAME
// --infrastructure eggo` renders: a Cluster on hosts of the SSHHost pool
// EGGO_HOST_POOL, behind eggo's load balancer on a host of
// EGGO_LOAD_BALANCER_POOL, with CONTROL_PLANE_MACHINE_COUNT masters and
// a MachineDeployment of WORKER_MACHINE_COUNT workers. The Jobs read the
// offline bundle of KUBERNETES_VERSION from the PersistentVolumeClaim
// EGGO_BUNDLE_CLAIM (at EGGO_BUNDLE_PATH inside it).
const clusterTemplate = `apiVersion: cluster.x-k8s.io/v1beta2
kind: Cluster
metadata:
  name: ${CLUSTER_NAME}
  namespace: ${NAMESPACE}
spec:
  clusterNetwork:
    pods:
      cidrBlocks: ["${EGGO_POD_CIDR:=10.244.0.0/16}"]
    services:
      cidrBlocks: ["${EGGO_SERVICE_CIDR:=10.96.0.0/16}"]
  infrastructureRef:
    apiGroup: infrastructure.eggo.io
    kind: SSHCluster
    name: ${CLUSTER_NAME}
  controlPlaneRef:
    apiGroup: controlplane.eggo.io
    kind: EggoControlPlane
    name: ${CLUSTER_NAME}-control-plane
---
apiVersion: infrastructure.eggo.io/v1alpha1
kind: SSHCluster
metadata:
  name: ${CLUSTER_NAME}
  namespace: ${NAMESPACE}
spec:
  loadBalancer:
    hostSelector:
      pool: ${EGGO_LOAD_BALANCER_POOL:=load-balancers}
---
apiVersion: infrastructure.eggo.io/v1alpha1
kind: SSHMachineTemplate
metadata:
  name: ${CLUSTER_NAME}-control-plane
  namespace: ${NAMESPACE}
spec:
  template:
    spec:
      hostSelector:
        pool: ${EGGO_HOST_POOL:=default}
---
apiVersion: controlplane.eggo.io/v1alpha1
kind: EggoControlPlane
metadata:
  name: ${CLUSTER_NAME}-control-plane
  namespace: ${NAMESPACE}
spec:
  replicas: ${CONTROL_PLANE_MACHINE_COUNT}
  version: ${KUBERNETES_VERSION}
  machineTemplate:
    spec:
      infrastructureRef:
        apiGroup: infrastructure.eggo.io
        kind: SSHMachineTemplate
        name: ${CLUSTER_NAME}-control-plane
  eggo:
    bundle:
      path: ${EGGO_BUNDLE_PATH:=${KUBERNETES_VERSION}}
      volume:
        persistentVolumeClaim:
          claimName: ${EGGO_BUNDLE_CLAIM:=eggo-bundle}
          readOnly: true
---
apiVersion: infrastructure.eggo.io/v1alpha1
kind: SSHMachineTemplate
metadata:
  name: ${CLUSTER_NAME}-md-0
  namespace: ${NAMESPACE}
spec:
  template:
    spec:
      hostSelector:
        pool: ${EGGO_HOST_POOL:=default}
---
apiVersion: bootstrap.eggo.io/v1alpha1
kind: EggoConfigTemplate
metadata:
  name: ${CLUSTER_NAME}-md-0
  namespace: ${NAMESPACE}
spec:
  template:
    spec: {}
---
apiVersion: cluster.x-k8s.io/v1beta2
kind: MachineDeployment
metadata:
  name: ${CLUSTER_NAME}-md-0
  namespace: ${NAMESPACE}
spec:
  clusterName: ${CLUSTER_NAME}
  replicas: ${WORKER_MACHINE_COUNT}
  # eggo's hosts are a fixed pool: a replaced worker gives its host back
  # before its replacement claims one (no surge host needed).
  rollout:
    strategy:
      type: RollingUpdate
      rollingUpdate:
        maxSurge: 0
        maxUnavailable: 1
  deletion:
    order: Random
  selector:
    matchLabels:
      cluster.x-k8s.io/cluster-name: ${CLUSTER_NAME}
      cluster.x-k8s.io/deployment-name: ${CLUSTER_NAME}-md-0
  template:
    metadata:
      labels:
        cluster.x-k8s.io/cluster-name: ${CLUSTER_NAME}
        cluster.x-k8s.io/deployment-name: ${CLUSTER_NAME}-md-0
    spec:
      clusterName: ${CLUSTER_NAME}
      version: ${KUBERNETES_VERSION}
      bootstrap:
        configRef:
          apiGroup: bootstrap.eggo.io
          kind: EggoConfigTemplate
          name: ${CLUSTER_NAME}-md-0
      infrastructureRef:
        apiGroup: infrastructure.eggo.io
        kind: SSHMachineTemplate
        name: ${CLUSTER_NAME}-md-0
`
