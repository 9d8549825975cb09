package core

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/tuxlb/tuxlb/core/internal/jsonx"
	"github.com/tuxlb/tuxlb/core/internal/rng"
	"github.com/tuxlb/tuxlb/core/internal/usec"
	"github.com/tuxlb/tuxlb/core/result"
)

// checkMarshalIndent fails t unless jsonx.MarshalIndent(v) gives
// json.MarshalIndent(v, "", "  ")'s bytes and error.
func checkMarshalIndent(t *testing.T, name string, v any) {
	t.Helper()
	want, werr := json.MarshalIndent(v, "", "  ")
	got, gerr := jsonx.MarshalIndent(v, 0)
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

// TestMarshalIndentGoldens: every golden result, read back into a Result,
// encodes as json.MarshalIndent encodes it, which is the golden file.
func TestMarshalIndentGoldens(t *testing.T) {
	files, _ := filepath.Glob("testdata/examples/*.result.json")
	if len(files) == 0 {
		t.Fatal("no golden results found")
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var r result.Result
		if err := json.Unmarshal(data, &r); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		checkMarshalIndent(t, f, &r)
		if got := result.Encode(&r); !bytes.Equal(got, data) {
			t.Errorf("%s: EncodeResult differs from the golden file", f)
		}
	}
}

// TestMarshalIndentRandom: Results filled at random (strings to escape,
// floats of every form, nil, empty and full slices, maps and pointers)
// encode as json.MarshalIndent encodes them.
func TestMarshalIndentRandom(t *testing.T) {
	r := rng.New(3, 4)
	for i := range 300 {
		var res result.Result
		fillRandom(reflect.ValueOf(&res).Elem(), r, 0)
		checkMarshalIndent(t, "random result "+string(rune('0'+i%10)), &res)
	}
}

// fillRandom sets v, and what it holds, at random.
func fillRandom(v reflect.Value, r *rng.PCG, depth int) {
	switch v.Kind() {
	case reflect.Bool:
		v.SetBool(r.IntN(2) == 0)
	case reflect.Int, reflect.Int64:
		v.SetInt(int64(r.Uint64()) >> r.IntN(64))
	case reflect.Uint64:
		v.SetUint(r.Uint64() >> r.IntN(64))
	case reflect.Float64:
		v.SetFloat(randomFloat(r))
	case reflect.String:
		v.SetString(randomStrings[r.IntN(len(randomStrings))])
	case reflect.Pointer:
		if r.IntN(3) > 0 {
			v.Set(reflect.New(v.Type().Elem()))
			fillRandom(v.Elem(), r, depth+1)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fillRandom(v.Field(i), r, depth+1)
			}
		}
	case reflect.Slice:
		switch n := r.IntN(5); {
		case n == 0: // nil
		case n == 1:
			v.Set(reflect.MakeSlice(v.Type(), 0, 0))
		default:
			n = r.IntN(max(8>>min(depth, 3), 1)) + 1
			v.Set(reflect.MakeSlice(v.Type(), n, n))
			for i := range n {
				fillRandom(v.Index(i), r, depth+1)
			}
		}
	case reflect.Map:
		switch n := r.IntN(4); {
		case n == 0: // nil
		default:
			v.Set(reflect.MakeMap(v.Type()))
			for range n - 1 {
				k := reflect.New(v.Type().Key()).Elem()
				fillRandom(k, r, depth+1)
				e := reflect.New(v.Type().Elem()).Elem()
				fillRandom(e, r, depth+1)
				v.SetMapIndex(k, e)
			}
		}
	}
}

var randomStrings = []string{"", "a", "SITE1", "GROUP1/1", "TOUPPER", "<&>", "é", "\x00", `"\`, "\xff", "\u2028", "a b.c-d_e"}

func randomFloat(r *rng.PCG) float64 {
	switch r.IntN(6) {
	case 0:
		return []float64{0, math.Copysign(0, -1), 1e-6, 1e-7, 5e-324, 1e21, 1e15, 999999999.999999, 0.1 + 0.2}[r.IntN(9)]
	case 1:
		for {
			if x := math.Float64frombits(r.Uint64()); !math.IsNaN(x) && !math.IsInf(x, 0) {
				return x
			}
		}
	case 2:
		return float64(int64(r.Uint64())>>r.IntN(64)) / 1e6
	default:
		return usec.Round6(float64(int64(r.Uint64())>>(10+r.IntN(54))) / float64(int64(1)<<r.IntN(40)))
	}
}
