package command

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/cli"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// docFiles are the documents that promise what eggo does.
func docFiles(t *testing.T) map[string]string {
	t.Helper()
	paths, _ := filepath.Glob("../website/*.md")
	paths = append(paths, "../README.md")
	out := map[string]string{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out[p] = string(b)
	}
	return out
}

var (
	inlineEggo = regexp.MustCompile("`((?:bin/)?eggo [^`]+)`")
	codeBlock  = regexp.MustCompile("(?s)```(\\w*)\\n(.*?)```")
	flagWord   = regexp.MustCompile(`^--?([a-z][a-z-]*)`)
)

// Every eggo command line the documents show names a command that exists
// and flags that command has (its -help lists them).
func TestDocsNameRealCommandsAndFlags(t *testing.T) {
	cmds := commands(&meta{})
	for _, bad := range []string{"eggo plan -nosuchflag", "eggo deploy", "eggo state list -out=x", "eggo plans", "eggo applied"} {
		if checkCommandLine(cmds, bad) == "" {
			t.Fatalf("the check passes %q", bad)
		}
	}
	checked := 0
	for path, text := range docFiles(t) {
		var lines []string
		for _, m := range inlineEggo.FindAllStringSubmatch(text, -1) {
			lines = append(lines, m[1])
		}
		for _, m := range codeBlock.FindAllStringSubmatch(text, -1) {
			for _, l := range strings.Split(m[2], "\n") {
				l = strings.TrimSpace(l)
				if strings.HasPrefix(l, "eggo ") || strings.HasPrefix(l, "bin/eggo ") || strings.HasPrefix(l, "./bin/eggo ") {
					lines = append(lines, l)
				}
			}
		}
		for _, l := range lines {
			if msg := checkCommandLine(cmds, l); msg != "" {
				t.Errorf("%s: `%s`: %s", filepath.Base(path), l, msg)
			}
			checked++
		}
	}
	if checked < 30 {
		t.Fatalf("only %d eggo command lines found in the documents: the pattern is wrong", checked)
	}
}

// checkCommandLine says what is wrong with one documented command line ("" if nothing).
func checkCommandLine(cmds map[string]cli.CommandFactory, line string) string {
	words := strings.Fields(line)[1:]
	for len(words) > 0 && strings.HasPrefix(words[0], "-chdir") {
		words = words[1:]
	}
	if len(words) == 0 || strings.HasPrefix(words[0], "-") {
		return "" // eggo -help, eggo --help
	}
	name := ""
	for n := 1; n <= 2 && n <= len(words); n++ {
		if _, ok := cmds[strings.Join(words[:n], " ")]; ok {
			name = strings.Join(words[:n], " ")
		}
	}
	if name == "" {
		if isOutput(line) {
			return ""
		}
		return "no such command " + words[0]
	}
	c, err := cmds[name]()
	if err != nil {
		return err.Error()
	}
	help := c.Help()
	for _, w := range words[len(strings.Fields(name)):] {
		m := flagWord.FindStringSubmatch(w)
		if m == nil || m[1] == "help" {
			continue
		}
		if !strings.Contains(help, "-"+m[1]) {
			return "eggo " + name + " has no flag -" + m[1] + " (its -help does not list it)"
		}
	}
	return ""
}

// isOutput tells what eggo prints, shown in a code block ("eggo v0.1.0 …",
// "eggo will perform the following actions:"), from a command; every other
// `eggo WORD` in the documents must be a command.
func isOutput(line string) bool {
	word := strings.Fields(line)[1]
	return len(word) > 1 && word[0] == 'v' && word[1] >= '0' && word[1] <= '9' ||
		strings.HasPrefix(line, "eggo will perform the following actions")
}

// Every HCL example in the documents is valid HCL syntax.
func TestDocsHCLExamplesParse(t *testing.T) {
	n := 0
	for path, text := range docFiles(t) {
		for _, m := range codeBlock.FindAllStringSubmatch(text, -1) {
			if m[1] != "hcl" {
				continue
			}
			n++
			if _, diags := hclsyntax.ParseConfig([]byte(m[2]), filepath.Base(path), hcl.InitialPos); diags.HasErrors() {
				t.Errorf("%s: an HCL example does not parse: %s\n%s", filepath.Base(path), diags.Error(), m[2])
			}
		}
	}
	if n < 10 {
		t.Fatalf("only %d HCL examples found", n)
	}
}
