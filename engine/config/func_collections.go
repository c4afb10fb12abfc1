package config

import (
	"errors"

	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
)

// indexFunc is Terraform's index(list, value): the position of the first
// element equal to value.
var indexFunc = function.New(&function.Spec{
	Description: "Returns the index of the first element of list equal to value.",
	Params: []function.Parameter{
		{Name: "list", Type: cty.DynamicPseudoType},
		{Name: "value", Type: cty.DynamicPseudoType},
	},
	Type: function.StaticReturnType(cty.Number),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		list := args[0]
		if ty := list.Type(); !ty.IsListType() && !ty.IsTupleType() {
			return cty.NilVal, function.NewArgErrorf(0, "argument must be a list or tuple")
		}
		for it := list.ElementIterator(); it.Next(); {
			i, v := it.Element()
			if v.Type().Equals(args[1].Type()) && v.RawEquals(args[1]) {
				return i, nil
			}
		}
		return cty.NilVal, errors.New("item not found")
	},
})
