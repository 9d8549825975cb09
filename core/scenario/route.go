package scenario

import (
	"bytes"
	"encoding/json"
	"reflect"
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
