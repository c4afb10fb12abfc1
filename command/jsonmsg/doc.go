// Package jsonmsg declares every message eggo prints with -json: the
// contract between the eggo CLI, which writes them (command's JSON view),
// and the programs that read them, such as the GitOps controller's Jobs
// (controller/jobrun). It imports only the standard library, so a reader
// takes none of eggo's engine with it.
//
// plan, apply, destroy and validate print one message per line, each with
// a "type" naming it (the Type* constants; Line reads just that). apply
// and destroy print the plan's messages as plan does before they apply,
// unless they apply a plan saved by plan -out; show -json PLANFILE prints
// a saved plan's messages. show, state show and graph print one indented
// document each (State, Resource, Graph). The hooks commands' -json
// prints the state's own hook run records, which are the state file's
// format and not declared here.
//
// Fields are declared in the alphabetical order of their JSON names and
// none is omitted when empty: these messages were maps before, which
// encoding/json writes with sorted keys and every key present, and the
// bytes must not change (command's golden files hold them).
// TestMessageKeysSorted checks the order.
//
// A value no view may show is the string SensitiveValue, and one known
// only after apply is UnknownValue, wherever they stand.
package jsonmsg

// The placeholders printed for values a message cannot show.
const (
	SensitiveValue = "(sensitive value)"
	UnknownValue   = "(known after apply)"
)
