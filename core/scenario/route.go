package scenario

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"strconv"

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

// MarshalJSON writes a number as a JSON number and anything else as a
// string: a written scenario reads as it would be typed (a fitted account
// 10001, not "10001"). Only a number in its shortest form is written bare
// (10001, -2.5; not 10000.50, 1e5, -0 or 20 digits): whatever reads the
// document as floating point (a browser) prints it back as the same text,
// so that a string criterion, which compares the text, sees the same value.
func (v RouteValue) MarshalJSON() ([]byte, error) {
	if shortestNumber(string(v)) {
		return []byte(v), nil
	}
	return json.Marshal(string(v))
}

// shortestNumber says whether s is a number as a float64 prints it, in
// the range where a browser prints it the same (no exponent: 1e-6 to 1e21
// in magnitude, or 0): the form in which a number reads back unchanged
// wherever it is read as one. Not 10000.50, 007, +1, 1e5, -0 or NaN.
func shortestNumber(s string) bool {
	f, err := strconv.ParseFloat(s, 64)
	if a := math.Abs(f); err != nil || math.IsNaN(f) || a >= 1e21 || a < 1e-6 && s != "0" {
		return false
	}
	return strconv.FormatFloat(f, 'f', -1, 64) == s
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
