package config

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"unicode/utf8"

	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
)

func stringFunc(desc string, impl func(s string) (string, error)) function.Function {
	return function.New(&function.Spec{
		Description: desc,
		Params:      []function.Parameter{{Name: "str", Type: cty.String}},
		Type:        function.StaticReturnType(cty.String),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			out, err := impl(args[0].AsString())
			if err != nil {
				return cty.UnknownVal(cty.String), err
			}
			return cty.StringVal(out), nil
		},
	})
}

var base64EncodeFunc = stringFunc("Encodes a string in Base64.", func(s string) (string, error) {
	return base64.StdEncoding.EncodeToString([]byte(s)), nil
})

var base64DecodeFunc = stringFunc("Decodes a Base64 string holding UTF-8 text.", func(s string) (string, error) {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		// The input may be a secret: say what is wrong, not what it was.
		return "", fmt.Errorf("the argument is not valid Base64: %v", err)
	}
	if !utf8.Valid(b) {
		return "", fmt.Errorf("the decoded bytes are not valid UTF-8 text")
	}
	return string(b), nil
})

var sha256Func = stringFunc("Returns the SHA-256 of a string in hexadecimal.", func(s string) (string, error) {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:]), nil
})

var base64SHA256Func = stringFunc("Returns the SHA-256 of a string in Base64.", func(s string) (string, error) {
	sum := sha256.Sum256([]byte(s))
	return base64.StdEncoding.EncodeToString(sum[:]), nil
})
