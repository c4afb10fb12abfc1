package config

import (
	"fmt"
	"math/big"
	"net/netip"

	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
)

// The cidr functions follow Terraform's semantics and messages: host bits
// in the prefix are ignored, a negative host number counts back from the
// end of the range, IPv4 and IPv6 both work.

var cidrHostFunc = function.New(&function.Spec{
	Description: "Returns the IP address of host number hostnum within the network prefix.",
	Params: []function.Parameter{
		{Name: "prefix", Type: cty.String},
		{Name: "hostnum", Type: cty.Number},
	},
	Type: function.StaticReturnType(cty.String),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		hostnum, err := wholeNumber(args[1], 1)
		if err != nil {
			return cty.UnknownVal(cty.String), err
		}
		p, err := parseCIDR(args[0].AsString())
		if err != nil {
			return cty.UnknownVal(cty.String), err
		}
		hostBits := p.Addr().BitLen() - p.Bits()
		max := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), uint(hostBits)), big.NewInt(1))
		n := new(big.Int).Set(hostnum)
		if n.Sign() < 0 {
			n.Add(n, max).Add(n, big.NewInt(1)) // -1 is the last address
		}
		if n.Sign() < 0 || n.Cmp(max) > 0 {
			return cty.UnknownVal(cty.String), fmt.Errorf("prefix of %d does not accommodate a host numbered %s", p.Bits(), hostnum)
		}
		return cty.StringVal(addOffset(p.Addr(), n).String()), nil
	},
})

var cidrSubnetFunc = function.New(&function.Spec{
	Description: "Returns subnet number netnum of prefix, newbits longer than it.",
	Params: []function.Parameter{
		{Name: "prefix", Type: cty.String},
		{Name: "newbits", Type: cty.Number},
		{Name: "netnum", Type: cty.Number},
	},
	Type: function.StaticReturnType(cty.String),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		newbitsBig, err := wholeNumber(args[1], 1)
		if err != nil {
			return cty.UnknownVal(cty.String), err
		}
		netnum, err := wholeNumber(args[2], 2)
		if err != nil {
			return cty.UnknownVal(cty.String), err
		}
		p, err := parseCIDR(args[0].AsString())
		if err != nil {
			return cty.UnknownVal(cty.String), err
		}
		if newbitsBig.Sign() < 0 {
			return cty.UnknownVal(cty.String), function.NewArgErrorf(1, "newbits must not be negative; got %s", newbitsBig)
		}
		bits := p.Addr().BitLen()
		if !newbitsBig.IsInt64() || int64(p.Bits())+newbitsBig.Int64() > int64(bits) {
			return cty.UnknownVal(cty.String), fmt.Errorf("insufficient address space to extend prefix of %d by %s", p.Bits(), newbitsBig)
		}
		newbits := int(newbitsBig.Int64())
		newLen := p.Bits() + newbits
		max := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), uint(newbits)), big.NewInt(1))
		if netnum.Sign() < 0 || netnum.Cmp(max) > 0 {
			return cty.UnknownVal(cty.String), fmt.Errorf("prefix extension of %d does not accommodate a subnet numbered %s", newbits, netnum)
		}
		offset := new(big.Int).Lsh(netnum, uint(bits-newLen))
		return cty.StringVal(netip.PrefixFrom(addOffset(p.Addr(), offset), newLen).String()), nil
	},
})

var cidrNetmaskFunc = function.New(&function.Spec{
	Description: "Returns the dotted-decimal netmask of an IPv4 prefix.",
	Params:      []function.Parameter{{Name: "prefix", Type: cty.String}},
	Type:        function.StaticReturnType(cty.String),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		p, err := parseCIDR(args[0].AsString())
		if err != nil {
			return cty.UnknownVal(cty.String), err
		}
		if !p.Addr().Is4() {
			return cty.UnknownVal(cty.String), fmt.Errorf("IPv6 addresses cannot have a netmask: %s", clip(args[0].AsString()))
		}
		mask := uint32(0xffffffff) << (32 - p.Bits())
		if p.Bits() == 0 {
			mask = 0
		}
		return cty.StringVal(netip.AddrFrom4([4]byte{byte(mask >> 24), byte(mask >> 16), byte(mask >> 8), byte(mask)}).String()), nil
	},
})

// parseCIDR parses a prefix and drops its host bits, as Terraform does.
func parseCIDR(s string) (netip.Prefix, error) {
	p, err := netip.ParsePrefix(s)
	if err != nil {
		return p, fmt.Errorf("invalid CIDR expression: invalid CIDR address: %s", clip(s))
	}
	return p.Masked(), nil
}

// wholeNumber converts argument i to an integer.
func wholeNumber(v cty.Value, i int) (*big.Int, error) {
	bf := v.AsBigFloat()
	if !bf.IsInt() {
		return nil, function.NewArgErrorf(i, "value must be a whole number")
	}
	n, _ := bf.Int(nil)
	return n, nil
}

// addOffset returns a + n; n is known to fit within a's prefix.
func addOffset(a netip.Addr, n *big.Int) netip.Addr {
	sum := new(big.Int).SetBytes(a.AsSlice())
	sum.Add(sum, n)
	buf := make([]byte, a.BitLen()/8)
	sum.FillBytes(buf)
	out, _ := netip.AddrFromSlice(buf)
	return out
}
