package kube

import "strings"

// unitArg writes one command-line argument of a unit's ExecStart so that
// systemd passes it as exactly one argument, unchanged: systemd splits
// ExecStart on whitespace, takes quotes and backslashes as syntax, expands
// $VAR and %-specifiers, and treats a lone ";" as a command separator. An
// argument with none of those is written as it is, so ordinary flags read
// as they always have; any other is double-quoted with \ and " escaped, $
// written $$ and % written %%.
func unitArg(a string) string {
	if a != "" && !strings.ContainsAny(a, " \t\n\"'\\$%;") {
		return a
	}
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "$", "$$", "%", "%%", "\n", `\n`, "\t", `\t`)
	return `"` + r.Replace(a) + `"`
}
