package config

import (
	"os"
	"path/filepath"
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/eggo-project/eggo/resources"
)

// connectionBody is a connection block checked against its schema: the
// top-level defaults or a node's own.
type connectionBody struct {
	block   *hcl.Block
	content *hcl.BodyContent
	bastion *hcl.Block
}

// connOverride holds the fields a connection block sets; nil means "not
// set here", so a node's block overrides only what it names.
type connOverride struct {
	typ, user, privateKey, passwordEnv, knownHosts *string
	hostKey                                        *string
	port, retries                                  *int
	agent, sudo                                    *bool
	timeout                                        *time.Duration
	bastion                                        *bastionOverride
}

type bastionOverride struct {
	block                         *hcl.Block
	host, user, privateKey, pwEnv *string
	hostKey                       *string
	port                          *int
	hostUnknown                   bool // validate mode: host is set, to a value not known
}

func (l *loader) declareConnection(b *hcl.Block) hcl.Diagnostics {
	if l.connection != nil {
		return hcl.Diagnostics{diagf(b.DefRange, "Duplicate connection block",
			"The default connection is already declared at %s; merge the two. "+
				"A node that needs other settings takes its own connection block.", source(l.connection.block.DefRange))}
	}
	cb, diags := parseConnection(b)
	l.connection = cb
	l.addVertex(&vertex{
		kind:       "connection",
		decl:       b.DefRange,
		traversals: bodyTraversals(b.Body),
		eval: func(ctx *hcl.EvalContext) hcl.Diagnostics {
			dec := l.decoder(ctx)
			l.defaultConn = l.decodeConnection(dec, cb)
			return dec.diags
		},
	})
	return diags
}

func parseConnection(b *hcl.Block) (*connectionBody, hcl.Diagnostics) {
	content, diags := b.Body.Content(connectionSchema)
	cb := &connectionBody{block: b, content: content}
	for _, bb := range content.Blocks {
		if cb.bastion != nil {
			diags = append(diags, diagf(bb.DefRange, "Duplicate bastion block",
				"This connection already has a bastion block at %s; eggo hops through one bastion.", source(cb.bastion.DefRange)))
			continue
		}
		cb.bastion = bb
	}
	return cb, diags
}

func (l *loader) decodeConnection(dec *decoder, cb *connectionBody) connOverride {
	attrs := cb.content.Attributes
	o := connOverride{
		typ:         dec.strPtr(attrs, "type"),
		user:        dec.strPtr(attrs, "user"),
		port:        dec.intPtr(attrs, "port", 1, 65535),
		privateKey:  l.keyFilePtr(dec, attrs, "private_key_file"),
		passwordEnv: envNamePtr(dec, attrs, "password_env"),
		agent:       dec.boolPtr(attrs, "agent"),
		knownHosts:  l.pathPtr(dec, attrs, "known_hosts_file"),
		hostKey:     hostKeyPtr(dec, attrs, "host_key"),
		sudo:        dec.boolPtr(attrs, "sudo"),
		timeout:     dec.durationPtr(attrs, "timeout"),
		retries:     dec.intPtr(attrs, "retries", 0, 100),
	}
	if o.timeout != nil {
		dec.atLeast(attrs, "timeout", *o.timeout, time.Second, "it bounds the dial and the SSH handshake, which take longer")
		dec.atMost(attrs, "timeout", *o.timeout, 10*time.Minute, "a host that has not answered the dial and the handshake by then will not")
	}
	if o.retries != nil && *o.retries == 0 {
		n := noRetries
		o.retries = &n
	}
	if o.typ != nil && *o.typ != "ssh" && *o.typ != "local" {
		dec.errorf(attrs["type"].Expr.Range(), "Invalid connection type",
			"type must be \"ssh\" or \"local\"; got %s.", dec.show(attrs["type"], *o.typ))
	}
	if o.user != nil && *o.user == "" {
		dec.errorf(attrs["user"].Expr.Range(), "Invalid user", "user must not be empty; leave it out for the default (root).")
	}
	if cb.bastion != nil {
		content, diags := cb.bastion.Body.Content(bastionSchema)
		dec.diags = append(dec.diags, diags...)
		ba := content.Attributes
		o.bastion = &bastionOverride{
			block:       cb.bastion,
			host:        dec.strPtr(ba, "host"),
			user:        dec.strPtr(ba, "user"),
			port:        dec.intPtr(ba, "port", 1, 65535),
			privateKey:  l.keyFilePtr(dec, ba, "private_key_file"),
			pwEnv:       envNamePtr(dec, ba, "password_env"),
			hostKey:     hostKeyPtr(dec, ba, "host_key"),
			hostUnknown: dec.isUnknown(ba, "host"),
		}
		if h := o.bastion.host; h != nil && !isHost(*h) {
			dec.errorf(ba["host"].Expr.Range(), "Invalid bastion host",
				"host must be an IP address or DNS name; got %s.", dec.show(ba["host"], *h))
		} else if h != nil && notAHost(*h) != "" {
			dec.errorf(ba["host"].Expr.Range(), "Invalid bastion host",
				"host is %s: %s. Give the IP address or DNS name of the jump host itself.", dec.show(ba["host"], *h), notAHost(*h))
		}
	}
	return o
}

// noRetries is how the model says retries = 0: providers/ssh reads a
// Target's Retries of 0 as "unset, the default 3" and a negative count as
// none, so 0 written in the language is carried as -1 (one attempt).
const noRetries = -1

// pathPtr reads a path on this machine (see localPath).
func (l *loader) pathPtr(dec *decoder, attrs hcl.Attributes, name string) *string {
	p := dec.strPtr(attrs, name)
	if p == nil {
		return nil
	}
	abs, err := l.localPath(*p)
	if err != nil {
		dec.errorf(attrs[name].Expr.Range(), "Invalid "+name, "%s.", err)
		return nil
	}
	return &abs
}

// envNamePtr reads the name of an environment variable. A common mistake is
// to write the password itself here, so the value is never echoed back.
func envNamePtr(dec *decoder, attrs hcl.Attributes, name string) *string {
	p := dec.strPtr(attrs, name)
	if p != nil && !isEnvName(*p) {
		dec.errorf(attrs[name].Expr.Range(), "Invalid "+name,
			"%s names the environment variable that holds the password (like \"NODE_PASSWORD\"): letters, digits "+
				"and underscores. It must not be the password itself.", name)
		return nil
	}
	return p
}

// defaultConnection is the connection when no block says otherwise.
func defaultConnection() resources.Connection {
	c := resources.Connection{Type: "ssh", User: "root", Port: 22, Timeout: 10 * time.Second, Retries: 3}
	if home, err := os.UserHomeDir(); err == nil {
		c.KnownHostsFile = filepath.Join(home, ".ssh", "known_hosts")
	}
	return c
}

// apply lays the fields o sets over c.
func (o connOverride) apply(c resources.Connection) resources.Connection {
	set(&c.Type, o.typ)
	set(&c.User, o.user)
	set(&c.Port, o.port)
	set(&c.PrivateKeyFile, o.privateKey)
	set(&c.PasswordEnv, o.passwordEnv)
	set(&c.Agent, o.agent)
	set(&c.KnownHostsFile, o.knownHosts)
	set(&c.HostKey, o.hostKey)
	set(&c.Sudo, o.sudo)
	set(&c.Timeout, o.timeout)
	set(&c.Retries, o.retries)
	if o.bastion != nil {
		b := resources.Bastion{}
		if c.Bastion != nil {
			b = *c.Bastion
		}
		if h := o.bastion.host; h != nil && *h != b.Host && o.bastion.hostKey == nil {
			b.HostKey = "" // a key belongs to its host: another host's is not inherited
		}
		set(&b.Host, o.bastion.host)
		set(&b.User, o.bastion.user)
		set(&b.Port, o.bastion.port)
		set(&b.PrivateKeyFile, o.bastion.privateKey)
		set(&b.PasswordEnv, o.bastion.pwEnv)
		set(&b.HostKey, o.bastion.hostKey)
		c.Bastion = &b
	}
	return c
}

func set[T any](dst *T, src *T) {
	if src != nil {
		*dst = *src
	}
}

// nodeConnectionBase is the connection every node starts from, made on
// first use: before a node block's instances are evaluated, which happens
// on every core.
func (l *loader) nodeConnectionBase() resources.Connection {
	if l.baseConn == nil {
		base := l.defaultConn.apply(defaultConnection())
		l.baseConn = &base
	}
	return *l.baseConn
}

// nodeConnection merges the defaults, the top-level block and the node's
// own block, then fills the bastion's unset fields from the connection: a
// jump host usually takes the same user and key. Not its host_key: that
// is another host's.
func (l *loader) nodeConnection(dec *decoder, own *connOverride) resources.Connection {
	c := l.nodeConnectionBase()
	if c.Bastion != nil {
		b := *c.Bastion // each node gets its own copy to fill in
		c.Bastion = &b
	}
	var bastionBlock *hcl.Block
	hostUnknown := false
	if bo := l.defaultConn.bastion; bo != nil {
		bastionBlock, hostUnknown = bo.block, bo.hostUnknown
	}
	if own != nil {
		c = own.apply(c)
		if bo := own.bastion; bo != nil {
			bastionBlock = bo.block
			if bo.host != nil || bo.hostUnknown {
				hostUnknown = bo.hostUnknown
			}
		}
	}
	if b := c.Bastion; b != nil {
		if b.Host == "" && !hostUnknown {
			dec.errorf(bastionBlock.DefRange, "Missing bastion host",
				"A bastion block needs host = \"...\": the jump host to connect through.")
		}
		if b.Port == 0 {
			b.Port = 22
		}
		if b.User == "" {
			b.User = c.User
		}
		if b.PrivateKeyFile == "" {
			b.PrivateKeyFile = c.PrivateKeyFile
		}
	}
	return c
}
