package command

import (
	"bytes"
	"testing"

	"github.com/eggo-project/eggo/engine"
)

// The plan says why secrets could not be decrypted: the one reason they
// share, or each value's.
func TestUnreadableSaysWhy(t *testing.T) {
	const wrong = "wrong identity: the identity given is not one of the recipients the data key is sealed to"
	for _, c := range []struct {
		name    string
		reasons map[string]string
		want    []string
	}{
		{"one reason", map[string]string{"cert.a.key": wrong, "output.token": wrong},
			[]string{"Warning: 2 secret value(s) in the state could not be decrypted: " + wrong + ".\n  - cert.a.key\n  - output.token\n"}},
		{"a reason each", map[string]string{"cert.a.key": wrong, "output.token": "MAC failure: it does not verify under the state's data key"},
			[]string{"could not be decrypted:\n  - cert.a.key: " + wrong + "\n  - output.token: MAC failure: it does not verify"}},
		{"none said (a plan saved before)", nil,
			[]string{"could not be decrypted: no identity given.\n"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var b bytes.Buffer
			renderUnreadable(&b, &engine.Plan{Unreadable: []string{"cert.a.key", "output.token"}, UnreadableReasons: c.reasons}, colorizer(false))
			mustContain(t, c.name, b.String(), c.want...)
		})
	}
}
