package hookcheck

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"unicode/utf8"

	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
)

// conditionFunctions are the functions a condition may call: the ones bcs
// and Argo templates use most, under the same names.
var conditionFunctions = map[string]function.Function{
	"asInt":   asIntFunc,
	"asFloat": asFloatFunc,
	"len":     lenFunc,
}

func anyParam() []function.Parameter {
	return []function.Parameter{{Name: "x", Type: cty.DynamicPseudoType, AllowNull: true, AllowDynamicType: true}}
}

// asInt accepts a whole number or a string holding one. Unlike Argo it does
// not truncate 4.5 to 4: a fraction is an error, use asFloat for those.
var asIntFunc = function.New(&function.Spec{
	Params: anyParam(),
	Type:   function.StaticReturnType(cty.Number),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		x := args[0]
		switch {
		case !x.IsNull() && x.Type() == cty.String:
			n, err := strconv.ParseInt(x.AsString(), 10, 64)
			if err != nil {
				return cty.NilVal, fmt.Errorf("asInt(%s): not an integer", describe(x))
			}
			return cty.NumberIntVal(n), nil
		case !x.IsNull() && x.Type() == cty.Number:
			if !x.AsBigFloat().IsInt() {
				return cty.NilVal, fmt.Errorf("asInt(%s): not an integer", describe(x))
			}
			return x, nil
		}
		return cty.NilVal, fmt.Errorf("asInt(%s): not an integer", describe(x))
	},
})

// asFloat accepts a number or a string holding a finite one.
var asFloatFunc = function.New(&function.Spec{
	Params: anyParam(),
	Type:   function.StaticReturnType(cty.Number),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		x := args[0]
		switch {
		case !x.IsNull() && x.Type() == cty.String:
			f, err := strconv.ParseFloat(x.AsString(), 64)
			if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
				return cty.NilVal, fmt.Errorf("asFloat(%s): not a number", describe(x))
			}
			return cty.NumberVal(new(big.Float).SetFloat64(f)), nil
		case !x.IsNull() && x.Type() == cty.Number:
			return x, nil
		}
		return cty.NilVal, fmt.Errorf("asFloat(%s): not a number", describe(x))
	},
})

// len counts the characters of a string or the elements of a list or object.
var lenFunc = function.New(&function.Spec{
	Params: anyParam(),
	Type:   function.StaticReturnType(cty.Number),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		x := args[0]
		switch {
		case x.IsNull():
		case x.Type() == cty.String:
			return cty.NumberIntVal(int64(utf8.RuneCountInString(x.AsString()))), nil
		case x.CanIterateElements():
			return cty.NumberIntVal(int64(x.LengthInt())), nil
		}
		return cty.NilVal, fmt.Errorf("len(%s): not a string, list or object", describe(x))
	},
})
