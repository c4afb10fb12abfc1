package hookcheck

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// exposition is what the test exporter serves for Prometheus to scrape.
const exposition = `# TYPE eggo_test_age gauge
eggo_test_age 25
# TYPE eggo_test_ratio gauge
eggo_test_ratio 0.97
# TYPE eggo_test_pods gauge
eggo_test_pods{pod="a"} 1
eggo_test_pods{pod="b"} 2
`

// prometheusBinary finds Debian's prometheus, installing it the way
// `make deps` does when it is missing. Without it the test skips on a
// developer's machine but fails in CI, where a skip would hide the gap.
func prometheusBinary(t *testing.T) string {
	if p, err := exec.LookPath("prometheus"); err == nil {
		return p
	}
	out, err := exec.Command("sh", "-c",
		"apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq prometheus").CombinedOutput()
	if err == nil {
		if p, err := exec.LookPath("prometheus"); err == nil {
			return p
		}
	}
	msg := fmt.Sprintf("prometheus is not installed and apt-get could not install it (run `make deps` as root): %v\n%s", err, out)
	if os.Getenv("CI") != "" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// startPrometheus runs a real Prometheus on a loopback port scraping a
// small exporter served by the test, and waits until the exporter's samples
// are queryable. The process and its directory go away when the test ends.
func startPrometheus(t *testing.T) string {
	bin := prometheusBinary(t)
	exporter := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4")
		w.Write([]byte(exposition))
	}))
	t.Cleanup(exporter.Close)

	dir := t.TempDir()
	config := fmt.Sprintf(`global:
  scrape_interval: 200ms
  scrape_timeout: 150ms
scrape_configs:
  - job_name: eggo-test
    static_configs:
      - targets: ['%s']
`, strings.TrimPrefix(exporter.URL, "http://"))
	if err := os.WriteFile(filepath.Join(dir, "prometheus.yml"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	addr := freeAddr(t)
	var logs bytes.Buffer
	cmd := exec.Command(bin,
		"--config.file="+filepath.Join(dir, "prometheus.yml"),
		"--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+addr,
		"--log.level=warn")
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})

	address := "http://" + addr
	deadline := time.Now().Add(20 * time.Second)
	for !sampled(address) {
		if time.Now().After(deadline) {
			t.Fatalf("prometheus at %s did not scrape the exporter within 20s; its log:\n%s", address, logs.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	return address
}

// sampled reports whether the exporter's target is up and scraped.
func sampled(address string) bool {
	resp, err := http.Get(address + "/api/v1/query?" + url.Values{"query": {`up{job="eggo-test"} == 1 and on() count(eggo_test_age) == 1`}}.Encode())
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	var ans struct {
		Data struct {
			Result []any `json:"result"`
		} `json:"data"`
	}
	return json.NewDecoder(resp.Body).Decode(&ans) == nil && len(ans.Data.Result) == 1
}

func freeAddr(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

func TestPrometheusChecks(t *testing.T) {
	address := startPrometheus(t)
	check := func(query, success, failure string) Spec {
		return Spec{Name: "prom", Prometheus: &Prometheus{Address: address, Query: query, Timeout: 5 * time.Second},
			SuccessCondition: success, FailureCondition: failure, ConsecutiveErrorLimit: new(0)}
	}
	run := func(s Spec) Result {
		if err := s.Validate(); err != nil {
			t.Fatal(err)
		}
		return Run(context.Background(), s, fast)
	}

	t.Run("success on a one-sample vector", func(t *testing.T) {
		r := run(check("eggo_test_age", "asFloat(result) < 30", ""))
		phaseIs(t, r, PhaseSuccessful, "1 successful")
		if r.Measurements[0].Value != "25" {
			t.Errorf("value %q, want 25", r.Measurements[0].Value)
		}
	})
	t.Run("success on a scalar", func(t *testing.T) {
		r := run(check("scalar(eggo_test_ratio)", "result >= 0.95", ""))
		phaseIs(t, r, PhaseSuccessful)
		if r.Measurements[0].Value != "0.97" {
			t.Errorf("value %q, want 0.97", r.Measurements[0].Value)
		}
	})
	t.Run("failed by limit", func(t *testing.T) {
		s := check("eggo_test_age", "result < 20", "")
		s.Count, s.Interval, s.FailureLimit = 4, 20*time.Millisecond, 1
		r := run(s)
		phaseIs(t, r, PhaseFailed, "2 of 2 measurements failed, more than failure_limit 1", `"result < 20" is false for 25`)
	})
	t.Run("inconclusive", func(t *testing.T) {
		r := run(check("eggo_test_age", "result < 10", "result > 100"))
		phaseIs(t, r, PhaseInconclusive, "more than inconclusive_limit 0", "neither success_condition nor failure_condition is true for 25")
	})
	t.Run("consecutive errors: no samples", func(t *testing.T) {
		s := check("eggo_test_missing", "result > 0", "")
		s.ConsecutiveErrorLimit = new(2)
		r := run(s)
		phaseIs(t, r, PhaseError, "3 errors in a row, more than consecutive_error_limit 2", `query "eggo_test_missing" returned no samples`)
		if r.Errors != 3 || r.Count != 0 {
			t.Errorf("result %+v", r)
		}
	})
	t.Run("bad query", func(t *testing.T) {
		r := run(check("sum(eggo_test_age", "result > 0", ""))
		phaseIs(t, r, PhaseError, "prometheus "+address, `query "sum(eggo_test_age"`, "bad_data", "parse error")
	})
	t.Run("unreachable prometheus", func(t *testing.T) {
		s := check("eggo_test_age", "result > 0", "")
		s.Prometheus.Address = "http://" + refusedAddr(t) // held: a freed port can be taken before the query
		r := run(s)
		phaseIs(t, r, PhaseError, "prometheus "+s.Prometheus.Address, "connection refused")
	})
	t.Run("non-numeric result", func(t *testing.T) {
		r := run(check(`"abc"`, "asFloat(result) > 1", ""))
		phaseIs(t, r, PhaseError, `asFloat("abc"): not a number`)
		r = run(check(`0/0`, "asFloat(result) > 1", ""))
		phaseIs(t, r, PhaseError, `asFloat("NaN"): not a number`)
	})
	t.Run("several samples", func(t *testing.T) {
		r := run(check("eggo_test_pods", "result > 0", ""))
		phaseIs(t, r, PhaseError, `returned 2 samples`, `pod="a"`, `pod="b"`, "aggregate it")
		r = run(check("sum(eggo_test_pods)", "result == 3", ""))
		phaseIs(t, r, PhaseSuccessful)
	})
	t.Run("range vector", func(t *testing.T) {
		r := run(check("eggo_test_age[1m]", "result > 0", ""))
		phaseIs(t, r, PhaseError, "returned a matrix")
	})
}
