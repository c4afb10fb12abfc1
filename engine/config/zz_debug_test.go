package config

import "testing"

func TestZZDebug(t *testing.T) {
	_, diags := Load("/tmp/fz", VarInput{})
	t.Log(diags)
}
