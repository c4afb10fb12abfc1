package hookcheck

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/eggo-project/eggo/internal/harness/proctest"
)

// reply is one scripted answer of the test endpoint.
type reply struct {
	status int
	body   string
}

// scripted serves the replies in order, then repeats the last one, and
// remembers what it was asked.
type scripted struct {
	mu      sync.Mutex
	replies []reply
	calls   int
	auth    []string
}

func serve(t *testing.T, replies ...reply) (*httptest.Server, *scripted) {
	sc := &scripted{replies: replies}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sc.mu.Lock()
		i := min(sc.calls, len(sc.replies)-1)
		sc.calls++
		sc.auth = append(sc.auth, r.Method+" "+r.Header.Get("Authorization"))
		rep := sc.replies[i]
		sc.mu.Unlock()
		w.WriteHeader(rep.status)
		w.Write([]byte(rep.body))
	}))
	t.Cleanup(srv.Close)
	return srv, sc
}

func (sc *scripted) count() int {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	return sc.calls
}

// fast keeps the error retry short so the loop tests take milliseconds.
var fast = Options{ErrorRetryInterval: time.Millisecond}

func webSpec(url string) Spec {
	return Spec{Name: "canary", Web: &Web{URL: url, JSONPath: "{$.age}"}, SuccessCondition: "asInt(result) < 30"}
}

func phaseIs(t *testing.T, r Result, want Phase, msgParts ...string) {
	t.Helper()
	if r.Phase != want {
		t.Fatalf("phase %s, want %s; message: %s; measurements: %+v", r.Phase, want, r.Message, r.Measurements)
	}
	for _, p := range msgParts {
		if !strings.Contains(r.Message, p) {
			t.Errorf("message %q lacks %q", r.Message, p)
		}
	}
}

func TestRunOneMeasurementByDefault(t *testing.T) {
	srv, sc := serve(t, reply{200, `{"name":"bryan","age":25}`})
	r := Run(context.Background(), webSpec(srv.URL), fast)
	phaseIs(t, r, PhaseSuccessful, `hook "canary"`, "1 measurement: 1 successful")
	if sc.count() != 1 || len(r.Measurements) != 1 || r.Measurements[0].Value != "25" {
		t.Errorf("calls %d, measurements %+v", sc.count(), r.Measurements)
	}
	if m := r.Measurements[0]; m.Start.IsZero() || m.Finish.Before(m.Start) {
		t.Errorf("times %v %v", m.Start, m.Finish)
	}
}

func TestRunCountWithInterval(t *testing.T) {
	srv, sc := serve(t, reply{200, `{"age":"20"}`})
	s := webSpec(srv.URL)
	s.Count, s.Interval = 3, 20*time.Millisecond
	start := time.Now()
	r := Run(context.Background(), s, fast)
	phaseIs(t, r, PhaseSuccessful)
	if sc.count() != 3 || r.Count != 3 || r.Successful != 3 {
		t.Errorf("calls %d, result %+v", sc.count(), r)
	}
	if took := time.Since(start); took < 40*time.Millisecond {
		t.Errorf("3 measurements 20ms apart took only %v", took)
	}
}

func TestRunInitialDelay(t *testing.T) {
	srv, _ := serve(t, reply{200, `{"age":1}`})
	s := webSpec(srv.URL)
	s.InitialDelay = 50 * time.Millisecond
	r := Run(context.Background(), s, fast)
	phaseIs(t, r, PhaseSuccessful)
	if d := r.Measurements[0].Start.Sub(r.Started); d < 50*time.Millisecond {
		t.Errorf("first measurement %v after the start, want the 50ms delay", d)
	}
}

func TestRunFailedByLimit(t *testing.T) {
	srv, sc := serve(t, reply{200, `{"age":45}`})
	s := webSpec(srv.URL)
	s.Count, s.Interval, s.FailureLimit = 5, time.Millisecond, 1
	r := Run(context.Background(), s, fast)
	// The first failure is tolerated, the second exceeds failure_limit 1.
	phaseIs(t, r, PhaseFailed, "2 of 2 measurements failed, more than failure_limit 1",
		`success_condition "asInt(result) < 30" is false for 45`)
	if sc.count() != 2 {
		t.Errorf("%d calls, want the run to stop at the second failure", sc.count())
	}
}

func TestRunFailureWithinLimitStillSucceeds(t *testing.T) {
	srv, _ := serve(t, reply{200, `{"age":45}`}, reply{200, `{"age":5}`})
	s := webSpec(srv.URL)
	s.Count, s.Interval, s.FailureLimit = 3, time.Millisecond, 1
	r := Run(context.Background(), s, fast)
	phaseIs(t, r, PhaseSuccessful, "3 measurements: 2 successful, 1 failed")
}

func TestRunInconclusive(t *testing.T) {
	srv, _ := serve(t, reply{200, `{"age":50}`})
	s := webSpec(srv.URL)
	s.FailureCondition = "asInt(result) > 100"
	r := Run(context.Background(), s, fast)
	phaseIs(t, r, PhaseInconclusive, "more than inconclusive_limit 0", "neither success_condition nor failure_condition is true for 50")
}

func TestRunConsecutiveErrors(t *testing.T) {
	srv, sc := serve(t, reply{503, "backend down\nstack..."})
	s := webSpec(srv.URL)
	s.Web.Headers = map[string]string{"Authorization": "Bearer tok-123"}
	r := Run(context.Background(), s, fast)
	// Default limit 4: the fifth error in a row ends the hook.
	phaseIs(t, r, PhaseError, "5 errors in a row, more than consecutive_error_limit 4",
		"GET "+srv.URL, "HTTP 503 Service Unavailable: backend down")
	if sc.count() != 5 || r.Count != 0 || r.Errors != 5 {
		t.Errorf("calls %d, result %+v", sc.count(), r)
	}
	if sc.auth[0] != "GET Bearer tok-123" {
		t.Errorf("headers not sent: %q", sc.auth[0])
	}
	s.ConsecutiveErrorLimit = new(0)
	r = Run(context.Background(), s, fast)
	phaseIs(t, r, PhaseError, "1 error in a row, more than consecutive_error_limit 0")
}

func TestRunErrorsDoNotCountAndResetOnSuccess(t *testing.T) {
	srv, sc := serve(t, reply{500, ""}, reply{500, ""}, reply{200, `{"age":1}`}, reply{500, ""}, reply{500, ""}, reply{200, `{"age":2}`})
	s := webSpec(srv.URL)
	s.Count, s.Interval, s.ConsecutiveErrorLimit = 2, time.Millisecond, new(2)
	r := Run(context.Background(), s, fast)
	// 2+2 errors never exceed 2 in a row; 2 good measurements complete the count.
	phaseIs(t, r, PhaseSuccessful, "2 measurements: 2 successful, 0 failed, 0 inconclusive; 4 errors")
	if sc.count() != 6 {
		t.Errorf("%d calls, want 6", sc.count())
	}
}

func TestRunConditionErrorIsAnErrorMeasurement(t *testing.T) {
	srv, _ := serve(t, reply{200, `{"age":"abc"}`})
	s := webSpec(srv.URL)
	s.ConsecutiveErrorLimit = new(0)
	r := Run(context.Background(), s, fast)
	phaseIs(t, r, PhaseError, `asInt("abc"): not an integer`)
	if m := r.Measurements[0]; m.Phase != PhaseError || m.Value != "abc" {
		t.Errorf("measurement %+v", m)
	}
}

func TestRunBadJSONPathNamesThePath(t *testing.T) {
	srv, _ := serve(t, reply{200, `{"weight":1}`})
	s := webSpec(srv.URL)
	s.ConsecutiveErrorLimit = new(0)
	r := Run(context.Background(), s, fast)
	phaseIs(t, r, PhaseError, `json_path {$.age}: at $: key "age" not found`)
}

// refusedAddr is a loopback address nothing listens on (proctest.RefusedPort).
func refusedAddr(t *testing.T) string {
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(proctest.RefusedPort(t)))
}

func TestRunUnreachableURL(t *testing.T) {
	addr := refusedAddr(t)
	s := webSpec("http://user:pa55word@" + addr + "/stats")
	s.Web.Headers = map[string]string{"X-Token": "very-secret"}
	s.ConsecutiveErrorLimit = new(0)
	r := Run(context.Background(), s, fast)
	phaseIs(t, r, PhaseError, "GET http://user:xxxxx@"+addr+"/stats", "connection refused")
	for _, secret := range []string{"pa55word", "very-secret"} {
		if strings.Contains(r.Message, secret) || strings.Contains(r.Measurements[0].Message, secret) {
			t.Errorf("secret %q in %q", secret, r.Message)
		}
	}
}

func TestRunRequestTimeout(t *testing.T) {
	block := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-block }))
	defer srv.Close()
	defer close(block)
	s := webSpec(srv.URL)
	s.Web.Timeout = 30 * time.Millisecond
	s.ConsecutiveErrorLimit = new(0)
	r := Run(context.Background(), s, fast)
	phaseIs(t, r, PhaseError, "no answer within 30ms")
}

func TestRunServerEchoingTokenIsScrubbed(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "bad token "+r.Header.Get("Authorization"), http.StatusUnauthorized)
	}))
	defer srv.Close()
	s := webSpec(srv.URL)
	s.Web.Headers = map[string]string{"Authorization": "Bearer tok-123"}
	s.ConsecutiveErrorLimit = new(0)
	r := Run(context.Background(), s, fast)
	phaseIs(t, r, PhaseError, "HTTP 401", "bad token [redacted]")
	if strings.Contains(r.Message, "tok-123") {
		t.Errorf("token in %q", r.Message)
	}
}

func TestRunWebMethodBodyAndPlainText(t *testing.T) {
	var got string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b := make([]byte, 64)
		n, _ := r.Body.Read(b)
		got = r.Method + " " + string(b[:n])
		w.Write([]byte("ok\n"))
	}))
	defer srv.Close()
	s := Spec{Name: "ping", Web: &Web{URL: srv.URL, Method: "POST", Body: `{"q":1}`}, SuccessCondition: `result == "ok"`}
	r := Run(context.Background(), s, fast)
	phaseIs(t, r, PhaseSuccessful)
	if got != `POST {"q":1}` {
		t.Errorf("server saw %q", got)
	}
}

func TestRunOpenEndedUntilTimeout(t *testing.T) {
	srv, sc := serve(t, reply{200, `{"age":1}`})
	s := webSpec(srv.URL)
	s.Interval, s.Timeout = 10*time.Millisecond, 80*time.Millisecond
	r := Run(context.Background(), s, fast)
	phaseIs(t, r, PhaseSuccessful, "ran for its timeout 80ms, no limit exceeded")
	if sc.count() < 3 {
		t.Errorf("only %d measurements in 80ms at a 10ms interval", sc.count())
	}
	// An open-ended hook still fails as soon as a limit is exceeded.
	srv2, _ := serve(t, reply{200, `{"age":1}`}, reply{200, `{"age":99}`})
	s.Web.URL = srv2.URL
	r = Run(context.Background(), s, fast)
	phaseIs(t, r, PhaseFailed, "1 of 2 measurements failed")
}

func TestRunOpenEndedWithOnlyErrors(t *testing.T) {
	srv, _ := serve(t, reply{500, ""})
	s := webSpec(srv.URL)
	s.Interval, s.Timeout, s.ConsecutiveErrorLimit = 10*time.Millisecond, 50*time.Millisecond, new(1000)
	r := Run(context.Background(), s, fast)
	phaseIs(t, r, PhaseError, "no measurement completed within the timeout 50ms", "last error: GET")
}

func TestRunCountedTimeout(t *testing.T) {
	// Errors after the first measurement keep the count from being reached.
	srv, _ := serve(t, reply{200, `{"age":1}`}, reply{502, ""})
	s := webSpec(srv.URL)
	s.Count, s.Interval, s.Timeout, s.ConsecutiveErrorLimit = 3, 10*time.Millisecond, 60*time.Millisecond, new(1000)
	r := Run(context.Background(), s, fast)
	phaseIs(t, r, PhaseError, "timeout 60ms passed after 1 of 3 measurements", "last error: GET", "HTTP 502")
}

func TestRunInterrupted(t *testing.T) {
	srv, _ := serve(t, reply{200, `{"age":1}`})
	s := webSpec(srv.URL)
	s.Count, s.Interval = 3, time.Hour
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	r := Run(ctx, s, fast)
	phaseIs(t, r, PhaseError, "interrupted", "1 measurement: 1 successful")
}

func TestRunKeepsOnlyRecentMeasurements(t *testing.T) {
	srv, _ := serve(t, reply{200, `{"age":1}`})
	s := webSpec(srv.URL)
	s.Count, s.Interval = 7, time.Millisecond
	var seen int
	opts := fast
	opts.KeepMeasurements = 3
	opts.OnMeasurement = func(Measurement) { seen++ }
	r := Run(context.Background(), s, opts)
	phaseIs(t, r, PhaseSuccessful)
	if len(r.Measurements) != 3 || r.Count != 7 || seen != 7 {
		t.Errorf("kept %d, count %d, seen %d", len(r.Measurements), r.Count, seen)
	}
}

func TestRunRefusesUnrenderedOrInvalidSpec(t *testing.T) {
	r := Run(context.Background(), canary(), fast)
	phaseIs(t, r, PhaseError, `hook "canary": web.url: template {{ args.svc }} is not rendered`)
	r = Run(context.Background(), Spec{Name: "x"}, fast)
	phaseIs(t, r, PhaseError, "no provider")
}
