package config

import (
	"net/url"
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
			u, err := url.Parse(ep)
			if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
				dec.errorf(elementRange(a.Expr, i, len(eps)), "Invalid etcd endpoint",
					"endpoints[%d] = %q is not an URL like https://10.0.0.5:2379.", i, ep)
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
