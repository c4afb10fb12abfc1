package kube

import (
	"context"
	"fmt"
	"path"
	"strings"

	"github.com/eggo-project/eggo/providers/shell"
	"github.com/eggo-project/eggo/resources"
)

// EtcdMember is the etcd_member kind: one member of the cluster's etcd
// (etcd_member.m0), its unit, certificates and membership. The members of
// a new cluster bootstrap together; a member added to a running cluster is
// `member add`ed first and starts as "existing"; a member removed from the
// configuration is `member remove`d through another member before it
// stops. A plan that would lose quorum in one step is refused.
type EtcdMember struct{}

// EtcdMemberAddr is a member's address.
func EtcdMemberAddr(node string) string { return "etcd_member." + node }

// Attributes beyond the service's.
const (
	etcdName      = "member_name"
	etcdPeerURL   = "peer_url"
	etcdClientURL = "client_url"
	etcdInitial   = "initial_cluster" // the members of a new cluster: name=peer URL, …
	etcdBootstrap = "bootstrap"       // computed: how this member started: new | existing
)

// Name is "etcd_member".
func (EtcdMember) Name() string { return "etcd_member" }

// Schema is the service's plus membership.
func (EtcdMember) Schema() resources.Schema {
	s := serviceSchema()
	s.Attributes[etcdName] = resources.AttrSchema{Description: "member name", ForceNew: true}
	s.Attributes[etcdPeerURL] = resources.AttrSchema{Description: "peer URL", ForceNew: true}
	s.Attributes[etcdClientURL] = resources.AttrSchema{Description: "client URL"}
	s.Attributes[etcdInitial] = resources.AttrSchema{Description: "the members a new cluster starts with"}
	s.Attributes[etcdBootstrap] = resources.AttrSchema{Description: "new: bootstrapped with the cluster; existing: joined a running cluster", Computed: true}
	return s
}

func etcdDir(c *resources.Cluster) string { return path.Join(c.ConfigDir, resources.CompEtcd) }

// etcdCleanup: how the member first started goes with it.
func etcdCleanup(configDir string) string {
	return "rm -f " + shell.Quote(path.Join(configDir, resources.CompEtcd, "bootstrap.env"))
}

// etcdctl runs etcdctl on a member's host as that member (its server
// certificate is also a client certificate). The endpoints come from the
// state and the paths from config_dir: each is quoted.
func etcdctl(dir, endpoints string) string {
	return fmt.Sprintf("ETCDCTL_API=3 etcdctl --endpoints=%s --cacert=%s --cert=%s --key=%s --dial-timeout=5s --command-timeout=15s",
		shell.Quote(endpoints), shell.Quote(path.Join(dir, "ca.crt")), shell.Quote(path.Join(dir, "server.crt")), shell.Quote(path.Join(dir, "server.key")))
}

// Expand returns one member per etcd node.
func (EtcdMember) Expand(c *resources.Cluster) ([]resources.Desired, error) {
	members := c.NodesWithRole("etcd")
	var initial []string
	for _, m := range members {
		initial = append(initial, m.Name+"="+resources.EtcdPeerURL(m))
	}
	out := make([]resources.Desired, 0, len(members))
	for _, n := range members {
		if err := resources.CheckBundleFiles(c, n, resources.CompEtcd, EtcdMemberAddr(n.Name)); err != nil {
			return nil, err
		}
		program := etcdProgram
		if c.EtcdStaticPods() {
			if err := checkEtcdPod(c, n); err != nil {
				return nil, err
			}
			program = resources.EtcdImageArchive // the pod runs the image's etcd
		}
		version, err := programVersion(c, n, program)
		if err != nil {
			return nil, fmt.Errorf("%s (%s): %w", EtcdMemberAddr(n.Name), n.Source, err)
		}
		dir := etcdDir(c)
		f := func(name string) string { return path.Join(dir, name) }
		own := map[string]string{
			"name":                        n.Name,
			"data-dir":                    "/var/lib/etcd",
			"listen-client-urls":          resources.EtcdClientURL(n) + ",https://127.0.0.1:2379",
			"advertise-client-urls":       resources.EtcdClientURL(n),
			"listen-peer-urls":            resources.EtcdPeerURL(n),
			"initial-advertise-peer-urls": resources.EtcdPeerURL(n),
			"client-cert-auth":            "true",
			"trusted-ca-file":             f("ca.crt"),
			"cert-file":                   f("server.crt"),
			"key-file":                    f("server.key"),
			"peer-client-cert-auth":       "true",
			"peer-trusted-ca-file":        f("ca.crt"),
			"peer-cert-file":              f("peer.crt"),
			"peer-key-file":               f("peer.key"),
		}
		s := service{
			Component: resources.CompEtcd,
			Files: []serviceFile{
				certFile(dir, "ca.crt", pkiRef(resources.PKIEtcdCA, "cert")),
				certFile(dir, "server.crt", certRef(resources.CertEtcdServer, n.Name, "cert")),
				certFile(dir, "server.key", certRef(resources.CertEtcdServer, n.Name, "key")),
				certFile(dir, "peer.crt", certRef(resources.CertEtcdPeer, n.Name, "cert")),
				certFile(dir, "peer.key", certRef(resources.CertEtcdPeer, n.Name, "key")),
			},
			DataDirs:      dataDirs(resources.CompEtcd),
			Health:        etcdctl(dir, "https://127.0.0.1:2379") + " endpoint health",
			HealthTimeout: DefaultHealthTimeout,
			Cleanup:       etcdCleanup(c.ConfigDir),
			Version:       version,
		}
		deps := []string{resources.HostAddr(n.Name)}
		if dep := etcdRunner(c, n, &s, own); dep != "" {
			deps = append(deps, dep)
		}
		attrs := s.attrs()
		attrs[svcAddress] = n.Address
		attrs[svcConnection] = resources.ConnectionAttrsIn(c, n)
		attrs[etcdName] = n.Name
		attrs[etcdPeerURL] = resources.EtcdPeerURL(n)
		attrs[etcdClientURL] = resources.EtcdClientURL(n)
		attrs[etcdInitial] = strings.Join(initial, ",")
		out = append(out, resources.Desired{
			Addr:      EtcdMemberAddr(n.Name),
			Kind:      "etcd_member",
			Node:      n.Name,
			Source:    n.Source,
			Range:     n.Ranges.Block,
			Attrs:     attrs,
			DependsOn: deps,
			Roll:      etcdRoll(n),
		})
	}
	return out, nil
}

// Read refreshes the member's service.
func (EtcdMember) Read(ctx context.Context, rc *resources.RunContext, prior resources.Object) (resources.Attrs, []resources.Reason, error) {
	return readService(ctx, rc, prior)
}

// runningMembers are the recorded members other than self that finished
// their last apply.
func runningMembers(rc *resources.RunContext, self string) []resources.Object {
	var out []resources.Object
	for _, o := range rc.Recorded("etcd_member") {
		if o.Addr != self && !o.Pending && o.Attrs != nil {
			out = append(out, o)
		}
	}
	return out
}

// Plan is the service's plan; a new member of a running cluster says so
// and joins one at a time. initial_cluster only matters the first time a
// member starts, so a change of it alone is recorded.
func (k EtcdMember) Plan(_ context.Context, rc *resources.RunContext, prior *resources.Object, desired resources.Desired) (resources.Change, error) {
	if err := refuseEtcdSwitch(prior, desired); err != nil {
		return resources.Change{}, err
	}
	ch, err := planService(k.Schema(), prior, desired)
	if err != nil {
		return ch, err
	}
	switch ch.Action {
	case resources.Create, resources.Replace:
	case resources.Update:
		ch.After[etcdBootstrap] = prior.Attrs[etcdBootstrap] // how it first started does not change
		return ch, nil
	default:
		return ch, nil
	}
	mode := "new"
	if len(runningMembers(rc, desired.Addr)) > 0 {
		mode = "existing"
		ch.Rolling = true
		ch.Reasons = append(ch.Reasons, resources.Reason{Code: resources.ReasonJoin, Detail: "joins the running etcd cluster (member add, then start)"})
	}
	ch.After[etcdBootstrap] = mode
	return ch, nil
}

// Create writes the member's files, adds it to a running cluster when
// there is one, and starts it.
func (k EtcdMember) Create(ctx context.Context, rc *resources.RunContext, desired resources.Desired, planned resources.Change) (resources.Attrs, error) {
	conn, err := serviceConn(ctx, rc, desired.Node, desired.Addr, desired.Attrs)
	if err != nil {
		return nil, err
	}
	mode := resources.AttrOr(resources.AttrString(planned.After[etcdBootstrap]), "new")
	dir := memberDir(desired.Attrs)
	in := &serviceInstall{rc: rc, conn: conn, addr: desired.Addr, node: desired.Node, svc: parseService(desired.Attrs), unit: true, noBlock: mode == "new"}
	in.beforeStart = func(ctx context.Context, rec resources.Attrs) error {
		rec[etcdBootstrap] = mode
		env := fmt.Sprintf("ETCD_INITIAL_CLUSTER=%s\nETCD_INITIAL_CLUSTER_STATE=new\nETCD_INITIAL_CLUSTER_TOKEN=eggo\n", resources.AttrString(desired.Attrs[etcdInitial]))
		if mode == "existing" {
			cluster, err := k.join(ctx, rc, in, desired)
			if err != nil {
				return err
			}
			env = fmt.Sprintf("ETCD_INITIAL_CLUSTER=%s\nETCD_INITIAL_CLUSTER_STATE=existing\n", cluster)
		}
		return uploadSmall(ctx, in, path.Join(dir, "bootstrap.env"), env)
	}
	return in.run(ctx, desired.Attrs)
}

// uploadSmall uploads a small file during an install.
func uploadSmall(ctx context.Context, in *serviceInstall, file, content string) error {
	if err := in.conn.Upload(ctx, strings.NewReader(content), int64(len(content)), file, 0o600, resources.SHA256Hex(content)); err != nil {
		return fmt.Errorf("%s: writing %s: %w", in.addr, file, err)
	}
	return nil
}

// Update is the service's update: restart (one member at a time in a roll)
// and wait for health; a new etcd program first snapshots the member's
// keyspace, and the member hands its leadership over.
func (EtcdMember) Update(ctx context.Context, rc *resources.RunContext, prior resources.Object, desired resources.Desired, _ resources.Change) (resources.Attrs, error) {
	attrs, err := updateService(ctx, rc, prior, desired, func(ctx context.Context, in *serviceInstall) error {
		if err := snapshotBeforeUpgrade(ctx, in); err != nil {
			return err
		}
		return handOverLeadership(ctx, in)
	})
	if attrs != nil {
		attrs[etcdBootstrap] = prior.Attrs[etcdBootstrap]
	}
	return attrs, err
}

// Delete removes the member from the cluster through another member, then
// stops it and removes its files. `eggo destroy` removes every member, so
// there it only stops.
func (EtcdMember) Delete(ctx context.Context, rc *resources.RunContext, prior resources.Object) (resources.Attrs, error) {
	if !rc.Destroy {
		if err := removeMember(ctx, rc, prior); err != nil {
			return prior.Attrs, err
		}
	}
	if err := removeSnapshots(ctx, rc, prior); err != nil {
		return prior.Attrs, err
	}
	return deleteService(ctx, rc, prior)
}

// memberDir is where a member's certificates are (the directory of its
// first file).
func memberDir(a resources.Attrs) string {
	if files := parseService(a).Files; len(files) > 0 {
		return path.Dir(files[0].Path)
	}
	return "/etc/kubernetes/etcd"
}
