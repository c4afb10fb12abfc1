package hookcheck

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/zclconf/go-cty/cty"
)

// maxBody bounds what a check reads from an endpoint: a check looks at a
// small status document, not a download.
const maxBody = 1 << 20

// measureWeb calls the endpoint and returns the value a condition sees:
// the JSON at the path, or the whole body (JSON when it parses, else text).
func measureWeb(ctx context.Context, client *http.Client, w *Web, jp *jsonPath) (cty.Value, error) {
	method := w.Method
	if method == "" {
		method = http.MethodGet
	}
	where := method + " " + redactURL(w.URL)
	data, err := fetch(ctx, client, method, w.URL, w.Headers, w.Body, w.Timeout)
	if err != nil {
		return cty.NilVal, scrub(fmt.Errorf("%s: %w", where, err), w.Headers)
	}
	if jp != nil {
		if data, err = jp.extract(data); err != nil {
			return cty.NilVal, err
		}
	}
	v, err := fromJSON(data)
	if err != nil {
		return cty.StringVal(strings.TrimSpace(string(data))), nil
	}
	return v, nil
}

// statusError is a non-2xx answer; the body's start often says why.
type statusError struct {
	status string
	body   string
}

func (e *statusError) Error() string {
	if e.body == "" {
		return "HTTP " + e.status
	}
	return fmt.Sprintf("HTTP %s: %s", e.status, e.body)
}

// fetch performs one request bounded by timeout and returns the body of a
// 2xx answer.
func fetch(ctx context.Context, client *http.Client, method, rawURL string, headers map[string]string, body string, timeout time.Duration) ([]byte, error) {
	if timeout <= 0 {
		timeout = DefaultRequestTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var reader io.Reader
	if body != "" {
		reader = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, rawURL, reader)
	if err != nil {
		return nil, errors.New("cannot build the request (bad method or URL)")
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := client.Do(req)
	if err != nil {
		if ctx.Err() == context.DeadlineExceeded {
			return nil, fmt.Errorf("no answer within %v", timeout)
		}
		var uerr *url.Error
		if errors.As(err, &uerr) {
			err = uerr.Err // its text repeats the URL, maybe with credentials
		}
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	if err != nil {
		return nil, fmt.Errorf("reading the answer: %v", err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return data, &statusError{status: resp.Status, body: snippet(data)}
	}
	if len(data) > maxBody {
		return nil, fmt.Errorf("answer larger than %d bytes", maxBody)
	}
	return data, nil
}

// snippet is the first line of a body, short enough for a message.
func snippet(data []byte) string {
	s := strings.TrimSpace(string(data))
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 120 {
		s = s[:120] + "…"
	}
	return s
}

// redactURL hides a password in the URL's user info.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparsable URL)"
	}
	return u.Redacted()
}

// scrub removes header values from a message: a server may echo a token
// back in its error page.
func scrub(err error, headers map[string]string) error {
	msg := err.Error()
	for _, v := range headers {
		if len(v) >= 4 {
			msg = strings.ReplaceAll(msg, v, "[redacted]")
		}
	}
	if msg == err.Error() {
		return err
	}
	return errors.New(msg)
}
