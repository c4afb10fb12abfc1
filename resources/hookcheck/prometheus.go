package hookcheck

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/zclconf/go-cty/cty"
)

// promAnswer is the envelope of Prometheus' HTTP API.
type promAnswer struct {
	Status    string `json:"status"`
	ErrorType string `json:"errorType"`
	Error     string `json:"error"`
	Data      struct {
		ResultType string          `json:"resultType"`
		Result     json.RawMessage `json:"result"`
	} `json:"data"`
}

type promSample struct {
	Metric map[string]string `json:"metric"`
	Value  [2]any            `json:"value"`
}

// measurePrometheus runs an instant query. A scalar, a string, or a vector
// of exactly one sample gives one value; an empty vector and a vector of
// several samples are errors (aggregate the query with sum(), max() …), so
// a condition always sees the same type. Finite numbers become numbers;
// NaN and ±Inf stay strings as Prometheus writes them, which asFloat refuses.
func measurePrometheus(ctx context.Context, client *http.Client, p *Prometheus) (cty.Value, error) {
	where := "prometheus " + redactURL(p.Address)
	endpoint := strings.TrimSuffix(p.Address, "/") + "/api/v1/query?" + url.Values{"query": {p.Query}}.Encode()
	data, err := fetch(ctx, client, http.MethodGet, endpoint, nil, "", p.Timeout)
	var status *statusError
	if err != nil && !errors.As(err, &status) {
		return cty.NilVal, fmt.Errorf("%s: %v", where, err)
	}
	var ans promAnswer
	if jerr := json.Unmarshal(data, &ans); jerr != nil || ans.Status == "" {
		if err != nil {
			return cty.NilVal, fmt.Errorf("%s: %v", where, err)
		}
		return cty.NilVal, fmt.Errorf("%s: the answer is not from Prometheus' query API", where)
	}
	if ans.Status != "success" {
		return cty.NilVal, fmt.Errorf("%s: query %q: %s: %s", where, p.Query, ans.ErrorType, ans.Error)
	}
	switch ans.Data.ResultType {
	case "scalar", "string":
		var pair [2]any
		if err := json.Unmarshal(ans.Data.Result, &pair); err != nil {
			return cty.NilVal, fmt.Errorf("%s: query %q: malformed %s result", where, p.Query, ans.Data.ResultType)
		}
		return sampleValue(pair, ans.Data.ResultType == "string")
	case "vector":
		var samples []promSample
		if err := json.Unmarshal(ans.Data.Result, &samples); err != nil {
			return cty.NilVal, fmt.Errorf("%s: query %q: malformed vector result", where, p.Query)
		}
		switch len(samples) {
		case 0:
			return cty.NilVal, fmt.Errorf("query %q returned no samples", p.Query)
		case 1:
			return sampleValue(samples[0].Value, false)
		}
		return cty.NilVal, fmt.Errorf("query %q returned %d samples (%s): a check needs exactly one; aggregate it, e.g. with sum() or max()",
			p.Query, len(samples), seriesList(samples))
	default:
		return cty.NilVal, fmt.Errorf("query %q returned a %s: a check needs an instant query giving one value", p.Query, ans.Data.ResultType)
	}
}

// sampleValue turns [timestamp, "value"] into the condition's result.
func sampleValue(pair [2]any, isString bool) (cty.Value, error) {
	text, ok := pair[1].(string)
	if !ok {
		return cty.NilVal, errors.New("malformed sample value")
	}
	if isString {
		return cty.StringVal(text), nil
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return cty.StringVal(text), nil
	}
	v, err := cty.ParseNumberVal(text)
	if err != nil {
		return cty.NumberFloatVal(f), nil
	}
	return v, nil
}

// seriesList names up to three series of a vector, for messages.
func seriesList(samples []promSample) string {
	var names []string
	for i, s := range samples {
		if i == 3 {
			names = append(names, "…")
			break
		}
		keys := make([]string, 0, len(s.Metric))
		for k := range s.Metric {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var labels []string
		for _, k := range keys {
			labels = append(labels, fmt.Sprintf("%s=%q", k, s.Metric[k]))
		}
		names = append(names, "{"+strings.Join(labels, ",")+"}")
	}
	return strings.Join(names, " ")
}
