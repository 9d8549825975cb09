package jsonx

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"testing"
	"time"
)

// checkMarshalIndent fails t unless MarshalIndent(v) gives
// json.MarshalIndent(v, "", "  ")'s bytes and error, and Marshal(v)
// json.Marshal(v)'s.
func checkMarshalIndent(t *testing.T, name string, v any) {
	t.Helper()
	wantC, werrC := json.Marshal(v)
	gotC, gerrC := Marshal(v, 0)
	if (gerrC == nil) != (werrC == nil) || gerrC != nil && gerrC.Error() != werrC.Error() || !bytes.Equal(gotC, wantC) {
		t.Fatalf("%s: Marshal gives %.200q (%v), want json.Marshal's %.200q (%v)", name, gotC, gerrC, wantC, werrC)
	}
	want, werr := json.MarshalIndent(v, "", "  ")
	got, gerr := MarshalIndent(v, 0)
	if (gerr == nil) != (werr == nil) || gerr != nil && gerr.Error() != werr.Error() {
		t.Fatalf("%s: error %v, want %v", name, gerr, werr)
	}
	if !bytes.Equal(got, want) {
		i := 0
		for i < min(len(got), len(want)) && got[i] == want[i] {
			i++
		}
		t.Fatalf("%s: differs from json.MarshalIndent at byte %d:\ngot  %q\nwant %q", name, i,
			got[max(i-40, 0):min(i+40, len(got))], want[max(i-40, 0):min(i+40, len(want))])
	}
}

// TestMarshalIndentOthers: values the results never hold go to
// encoding/json, whose bytes and errors they keep.
func TestMarshalIndentOthers(t *testing.T) {
	type embedded struct{ A int }
	type withEmbedded struct {
		embedded
		B int
	}
	type tagged struct {
		N   int64  `json:"n,string"`
		Odd string `json:"odd name"`
		Zip int    `json:",omitempty"`
		Def string
		sec string
	}
	cases := map[string]any{
		"marshaler":    map[string]any{"t": time.Unix(5, 0).UTC(), "r": json.RawMessage(`{"a": [1, 2]}`)},
		"embedded":     withEmbedded{embedded{1}, 2},
		"tag options":  tagged{N: 7, Odd: "<o>", Def: "d", sec: "s"},
		"bytes":        struct{ B []byte }{[]byte("hi")},
		"NaN":          []float64{1, math.NaN()},
		"infinity":     map[string]float64{"x": math.Inf(-1)},
		"float32":      []float32{0.1, 1e-7},
		"array":        [3]int{1, 2, 3},
		"nil":          nil,
		"int keys":     map[int]string{2: "b", 1: "a"},
		"interfaces":   []any{nil, 1.5, "s", []any{}, map[string]any{}, true},
		"empty struct": struct{}{},
		"all omitted": struct {
			A []int `json:"a,omitempty"`
		}{},
		"escapes":        []string{"\"\\/\b\f\n\r\t\x01", "<a&b>", "\u2028\u2029", "\xff\xfe", "é"},
		"special floats": []float64{math.Copysign(0, -1), 5e-324, math.MaxFloat64, 1e-7, 1e21, 1e20, 123456789012345.6},
		"integers": struct {
			I []int64
			U []uint64
			N []int
		}{[]int64{math.MinInt64, math.MaxInt64, 0, -1, 9, 10, -10, 99, 100, -1234567}, []uint64{math.MaxUint64, 0, 9, 10}, []int{-5, 5}},
		"pointer to float": struct{ P, Q *float64 }{P: new(float64)},
	}
	intType := reflect.TypeFor[int]()
	dup := reflect.New(reflect.StructOf([]reflect.StructField{ // go vet refuses repeated tags in source
		{Name: "A", Type: intType, Tag: `json:"x"`}, {Name: "B", Type: intType, Tag: `json:"x"`}, {Name: "C", Type: intType}}))
	cases["repeated names"] = dup.Interface()
	deep := any([]int{1})
	for range 20 { // deeper than the spaces newline slices
		deep = map[string]any{"a": []any{deep, 2}}
	}
	cases["deep"] = deep
	for name, v := range cases {
		checkMarshalIndent(t, name, v)
	}
}

// FuzzMarshalIndentFloat: every float is written as encoding/json writes it.
func FuzzMarshalIndentFloat(f *testing.F) {
	for _, x := range []float64{0, 1, -1, 0.5, 1e-6, 999999.999999, 123.456, 1e15, 1e-7, 0.1 + 0.2} {
		f.Add(math.Float64bits(x))
	}
	f.Fuzz(func(t *testing.T, bits uint64) {
		x := math.Float64frombits(bits)
		checkMarshalIndent(t, "float", []float64{x, roundF(x), roundF(x / 1e9), float64(int64(bits)) / 1e6})
	})
}

// roundF rounds x to the millionth, as the engine rounds every figure of a
// result (core's roundF).
func roundF(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return 0
	}
	return math.Round(x*1e6) / 1e6
}
