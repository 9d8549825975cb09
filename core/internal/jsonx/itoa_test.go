package jsonx

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

// maxTimeUS is the longest simulated time (core.maxTimeUS).
const maxTimeUS = 1_000_000_000_000

// intEdges are the values where a decimal formatter can slip: 0, each
// power of ten and its neighbours (a digit more or less), 2^32 and its
// neighbours (appendDecimal's switch to 32 bits), the longest simulated
// time, and the ends of int64.
func intEdges() []int64 {
	v := []int64{0, 1, 9, 10, 11, 99, 100, 101, 999, maxTimeUS - 1, maxTimeUS, maxTimeUS + 1,
		1<<32 - 1, 1 << 32, 1<<32 + 1, 1<<31 - 1, 1 << 31, math.MaxInt64, math.MaxInt64 - 1}
	for p := int64(10); p <= 1e18; p *= 10 {
		v = append(v, p-1, p, p+1, 2*p-1, 5*p+99)
	}
	for _, x := range v[:len(v):len(v)] {
		v = append(v, -x)
	}
	return append(v, math.MinInt64, math.MinInt64+1)
}

// randomInts draws n values of every magnitude (a random shift of a
// random 63-bit value), half of them negative.
func randomInts(n int) []int64 {
	r := rand.New(rand.NewPCG(1, 2))
	v := make([]int64, n)
	for i := range v {
		x := r.Int64() >> r.IntN(63)
		if r.IntN(2) == 0 {
			x = -x
		}
		v[i] = x
	}
	return v
}

func TestAppendIntMatchesStrconv(t *testing.T) {
	for _, v := range append(intEdges(), randomInts(200_000)...) {
		// after a prefix, with no room left (appendDecimal grows b) and
		// with plenty
		for _, b := range [][]byte{nil, []byte("x,"), make([]byte, 3, 64)} {
			want := string(strconv.AppendInt(append([]byte(nil), b...), v, 10))
			if got := string(AppendInt(append([]byte(nil), b...), v)); got != want {
				t.Fatalf("AppendInt(%q, %d): got %q, want %q", b, v, got, want)
			}
			if got := string(AppendInt(b, v)); got != want {
				t.Fatalf("AppendInt(%q (cap %d), %d): got %q, want %q", b, cap(b), v, got, want)
			}
		}
	}
}

func TestAppendUintMatchesStrconv(t *testing.T) {
	vals := []uint64{math.MaxUint64, math.MaxUint64 - 1, 1e19 - 1, 1e19, 1e19 + 1, 1 << 63}
	for _, v := range append(intEdges(), randomInts(200_000)...) {
		vals = append(vals, uint64(v))
	}
	for _, v := range vals {
		want := string(strconv.AppendUint([]byte("7"), v, 10))
		if got := string(AppendUint([]byte("7"), v)); got != want {
			t.Fatalf("AppendUint(%d): got %q, want %q", v, got, want)
		}
	}
}

// The result writes milliseconds with up to 6 decimals: the whole part
// through AppendUint, then the fraction. Such values, at the edges (0, the
// longest time, a millionth, ...9.999999) and at random, keep
// encoding/json's bytes.
func TestMillisecondsMatchEncodingJSON(t *testing.T) {
	ms := []float64{0, 1e-6, 0.5, 0.999999, 1, 9.999999, 10, 99.000001, 123456.789012, maxTimeUS / 1000,
		maxTimeUS/1000 - 1e-6, 4294967.296, 4294967.295999}
	r := rand.New(rand.NewPCG(3, 4))
	for range 100_000 {
		us := r.Int64N(maxTimeUS+1) >> r.IntN(40)
		ms = append(ms, float64(us)/1000, float64(us)/1e6, math.Round(r.Float64()*float64(us))/1e6)
	}
	for i := range ms[:len(ms):len(ms)] {
		ms = append(ms, -ms[i])
	}
	checkMarshalIndent(t, "milliseconds", ms)
}

func BenchmarkAppendInt(b *testing.B) {
	vals := randomInts(1024)
	for i := range vals {
		vals[i] = vals[i] & (1<<27 - 1) // µs times of a run of a few minutes
	}
	buf := make([]byte, 0, 32)
	for i := 0; i < b.N; i++ {
		buf = AppendInt(buf[:0], vals[i&1023])
	}
}
