package scenario

import (
	"bytes"
	"encoding/json"
	"reflect"

	"github.com/tuxlb/tuxlb/core/internal/jsonx"
)

// RouteValue is a routing value in a JSON document: a string, or a number
// kept as written ("10000", "-2.5").
type RouteValue string

// UnmarshalJSON accepts a JSON string or number.
func (v *RouteValue) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	if len(data) > 0 && data[0] == '"' {
		var s string
		if err := json.Unmarshal(data, &s); err != nil {
			return err
		}
		*v = RouteValue(s)
		return nil
	}
	var n json.Number
	if err := json.Unmarshal(data, &n); err != nil || len(data) == 0 || data[0] == 'n' {
		return &json.UnmarshalTypeError{Value: string(data), Type: routeValueType}
	}
	*v = RouteValue(n)
	return nil
}

var routeValueType = reflect.TypeOf(RouteValue(""))

// JSONProblem says what is wrong with a routing value that did not decode
// (jsonx.Shaped): a string or a number is wanted.
func (*RouteValue) JSONProblem(v any, path string) jsonx.Problem {
	switch v.(type) {
	case string, json.Number:
		return jsonx.Problem{}
	}
	return jsonx.Mismatch(path, "a string or a number", v)
}

var _ jsonx.Shaped = (*RouteValue)(nil)

// MarshalJSON writes a number as a JSON number (as it was written) and
// anything else as a string: a written scenario reads as it would be typed
// (a fitted account 10001, not "10001"), and reads back the same value,
// since a string criterion takes a number's text.
func (v RouteValue) MarshalJSON() ([]byte, error) {
	if isJSONNumber(string(v)) {
		return []byte(v), nil
	}
	return json.Marshal(string(v))
}

// isJSONNumber says whether s is a JSON number literal: -?int frac? exp?,
// the int without leading zeros.
func isJSONNumber(s string) bool {
	i := 0
	digits := func() int {
		j := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		return i - j
	}
	if i < len(s) && s[i] == '-' {
		i++
	}
	if n := digits(); n == 0 || (n > 1 && s[i-n] == '0') {
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(s)
}

// RouteSpec is how a generated stream of a routed service draws its routing
// values: from a distribution of numbers (Dist with its parameters) or from
// a weighted list of values (Values, Weights). Numbers are whole unless
// Integer is false.
type RouteSpec struct {
	Dist    string       `json:"dist,omitempty"` // uniform (min, max), normal (mean, sd), exp (mean)
	Min     *float64     `json:"min,omitempty"`
	Max     *float64     `json:"max,omitempty"`
	Mean    *float64     `json:"mean,omitempty"`
	SD      *float64     `json:"sd,omitempty"`
	Integer *bool        `json:"integer,omitempty"` // default true: draws are rounded to whole numbers
	Values  []RouteValue `json:"values,omitempty"`
	Weights []float64    `json:"weights,omitempty"` // one per value, default all 1
}
