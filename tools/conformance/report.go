// Package conformance runs the Kubernetes conformance suite (e2e.test's
// [Conformance] tests, under ginkgo) against a cluster eggo deployed on
// the testbed, and sums up its JUnit reports: `make conformance`.
package conformance

import (
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// Outcome of one test.
type Outcome string

const (
	Passed  Outcome = "passed"
	Failed  Outcome = "failed"
	Skipped Outcome = "skipped"
	NotRun  Outcome = "not run" // in the list, in no report
)

// Result is one test's outcome and why (a failure's or skip's message).
type Result struct {
	Name    string
	Outcome Outcome
	Reason  string
}

// junitSuites is the part of a ginkgo v2 JUnit report read here.
type junitSuites struct {
	Suites []struct {
		Cases []junitCase `xml:"testcase"`
	} `xml:"testsuite"`
}

type junitCase struct {
	Name    string `xml:"name,attr"`
	Status  string `xml:"status,attr"`
	Failure *struct {
		Message string `xml:"message,attr"`
		Text    string `xml:",chardata"`
	} `xml:"failure"`
	Error *struct {
		Message string `xml:"message,attr"`
	} `xml:"error"`
	Skipped *struct {
		Message string `xml:"message,attr"`
	} `xml:"skipped"`
}

// ReadJUnit reads the test cases of one JUnit report.
func ReadJUnit(r io.Reader) ([]Result, error) {
	var s junitSuites
	if err := xml.NewDecoder(r).Decode(&s); err != nil {
		return nil, err
	}
	var out []Result
	for _, suite := range s.Suites {
		for _, c := range suite.Cases {
			out = append(out, resultOf(c))
		}
	}
	return out, nil
}

func resultOf(c junitCase) Result {
	// Ginkgo names a case "[It] " and the spec's full text, which is the
	// test's name in the conformance list.
	r := Result{Name: strings.TrimPrefix(c.Name, "[It] "), Outcome: Passed}
	switch {
	case c.Failure != nil:
		r.Outcome, r.Reason = Failed, firstLine(c.Failure.Message, c.Failure.Text)
	case c.Error != nil:
		r.Outcome, r.Reason = Failed, firstLine(c.Error.Message, "")
	case c.Skipped != nil || c.Status == "skipped" || c.Status == "pending":
		r.Outcome = Skipped
		if c.Skipped != nil {
			r.Reason = firstLine(c.Skipped.Message, "")
		}
	case c.Status != "" && c.Status != "passed":
		r.Outcome, r.Reason = Failed, c.Status
	}
	return r
}

func firstLine(msg, text string) string {
	s := strings.TrimSpace(msg)
	if s == "" {
		s = strings.TrimSpace(text)
	}
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}

// Summary is the outcome of every listed test across the phases' reports.
type Summary struct {
	Results []Result // one per listed test, in the list's order
	Flaked  int      // of the passed, those that passed only on a later attempt
}

// Count is how many tests ended with o.
func (s Summary) Count(o Outcome) int {
	n := 0
	for _, r := range s.Results {
		if r.Outcome == o {
			n++
		}
	}
	return n
}

// Summarize gives each test of list its outcome in the reports (a ginkgo
// run reports every spec, those its focus left out as skipped): a test
// that ran in any phase has that phase's outcome, a test skipped in every
// phase is skipped with the first reason given, one in no report is not
// run. A report's name is matched to the list by the test's full text.
func Summarize(list []string, reports [][]Result) Summary {
	best := map[string]Result{}
	for _, rs := range reports {
		for _, r := range rs {
			prev, seen := best[r.Name]
			if !seen || rank(r) > rank(prev) {
				best[r.Name] = r
			}
		}
	}
	var s Summary
	for _, name := range list {
		r, ok := best[name]
		if !ok || r.Outcome == Skipped && rank(r) == 1 {
			// In no report, or only left out by every phase's focus
			// (ginkgo's bare "skipped"): a smoke run's other tests.
			r = Result{Name: name, Outcome: NotRun}
		}
		s.Results = append(s.Results, r)
	}
	return s
}

// rank orders a test's results across phases: one that ran beats a skip,
// and a skip that says why beats one that does not.
func rank(r Result) int {
	switch {
	case r.Outcome == Passed || r.Outcome == Failed:
		return 3
	case r.Reason != "" && r.Reason != "skipped":
		return 2
	}
	return 1
}

// ReadReports reads every *.xml under dir (recursively).
func ReadReports(dir string) ([][]Result, error) {
	var out [][]Result
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".xml") {
			return err
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		rs, err := ReadJUnit(f)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		out = append(out, rs)
		return nil
	})
	return out, err
}

// Print writes the summary: a line "N passed, F failed, S skipped of T"
// (and how many did not run), then every failure and skip with its reason.
func (s Summary) Print(w io.Writer) {
	notRun := s.Count(NotRun)
	fmt.Fprintf(w, "%d passed", s.Count(Passed))
	if s.Flaked > 0 {
		fmt.Fprintf(w, " (%d only on a later attempt: the e2e log names it after FLAKEY TEST)", s.Flaked)
	}
	fmt.Fprintf(w, ", %d failed, %d skipped of %d", s.Count(Failed), s.Count(Skipped), len(s.Results))
	if notRun > 0 {
		fmt.Fprintf(w, " (%d not run)", notRun)
	}
	fmt.Fprintln(w)
	for _, o := range []Outcome{Failed, Skipped} {
		var rs []Result
		for _, r := range s.Results {
			if r.Outcome == o {
				rs = append(rs, r)
			}
		}
		sort.Slice(rs, func(i, j int) bool { return rs[i].Name < rs[j].Name })
		for _, r := range rs {
			fmt.Fprintf(w, "%s: %s\n    %s\n", strings.ToUpper(string(o)), r.Name, r.Reason)
		}
	}
}

// ReadList reads a list of test names, one a line (conformance-tests.txt).
func ReadList(path string) ([]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, l := range strings.Split(string(data), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return slices.Clip(out), nil
}
