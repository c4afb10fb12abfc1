package config

import (
	"net/url"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
)

func (l *loader) decodeEtcdBackend(b *hcl.Block, be *Backend) (*Backend, hcl.Diagnostics) {
	dec, attrs, diags := l.blockDecoder(b, etcdBackendSchema)
	if dec == nil {
		return nil, diags
	}
	if eps, ok := dec.stringList(attrs, "endpoints"); ok {
		a := attrs["endpoints"]
		for i, ep := range eps {
			if why := endpointProblem(ep); why != "" {
				summary := "Invalid etcd endpoint"
				if why == credentialsProblem {
					summary = "Credentials in an etcd endpoint"
				}
				dec.errorf(elementRange(a.Expr, i, len(eps)), summary, "endpoints[%d] = %s %s.", i, quoted(withoutUserinfo(ep)), why)
				continue
			}
			be.Endpoints = append(be.Endpoints, ep)
		}
		if len(eps) == 0 {
			dec.errorf(a.Expr.Range(), "No etcd endpoints", "endpoints needs at least one URL, like https://10.0.0.5:2379.")
		}
	}
	be.Prefix = dec.str(attrs, "prefix", "/eggo/")
	if !strings.HasPrefix(be.Prefix, "/") {
		dec.errorf(attrs["prefix"].Expr.Range(), "Invalid prefix", "prefix must start with \"/\", like \"/eggo/\".")
	}
	if !strings.HasSuffix(be.Prefix, "/") {
		be.Prefix += "/"
	}
	for _, f := range []struct {
		name string
		dst  *string
	}{{"ca_file", &be.CAFile}, {"cert_file", &be.CertFile}, {"key_file", &be.KeyFile}} {
		if p := dec.strPtr(attrs, f.name); p != nil {
			*f.dst = l.pathAttr(dec, attrs[f.name], *p)
		}
	}
	if (be.CertFile == "") != (be.KeyFile == "") && !dec.isUnknown(attrs, "cert_file", "key_file") {
		dec.errorf(b.DefRange, "Incomplete client certificate", "cert_file and key_file go together: give both or neither.")
	}
	decodeLock(dec, attrs, be)
	return be, dec.diags
}

const credentialsProblem = "holds a user name and password (USER:PASSWORD@), which a configuration, and the plans and logs that " +
	"repeat it, must not: remove them, and authenticate with a client certificate (cert_file and key_file)"

// endpointProblem says what is wrong with an etcd endpoint ("" when
// nothing): it is an http(s) URL with a host, a port from 1 to 65535 if
// any, and no credentials.
func endpointProblem(ep string) string {
	if withoutUserinfo(ep) != ep {
		return credentialsProblem
	}
	u, err := url.Parse(ep)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return "is not an URL like https://10.0.0.5:2379"
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return "has a port out of the range 1 to 65535"
		}
	}
	return ""
}

// withoutUserinfo is the URL s with anything before an "@" of its
// authority (USER:PASSWORD@) replaced by "…", for messages. It does not
// parse s, which may be malformed (a password holding "/" or "#"): it cuts
// from "//" to the last "@".
func withoutUserinfo(s string) string {
	start := strings.Index(s, "//")
	if start < 0 {
		start = 0
	} else {
		start += 2
	}
	at := strings.LastIndex(s[start:], "@")
	if at < 0 {
		return s
	}
	return s[:start] + "…@" + s[start+at+1:]
}
