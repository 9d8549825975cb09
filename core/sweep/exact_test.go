package sweep

import (
	"math"
	"math/big"
	"math/rand/v2"
	"strconv"
	"testing"
)

// The exact arithmetic replaces math/big's Rat in the sweep keys: these
// tests hold it to math/big's answers, the reference it must match bit for
// bit (the keys' results were made with it).

func ratOfText(t *testing.T, s string) *big.Rat {
	t.Helper()
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		t.Fatalf("math/big refuses %q", s)
	}
	return r
}

// randomDecimal is decimal text as a user or FormatFloat writes it.
func randomDecimal(r *rand.Rand) string {
	switch r.IntN(4) {
	case 0: // a float64's shortest text, any magnitude
		f := math.Float64frombits(r.Uint64() &^ (1 << 63))
		if math.IsInf(f, 0) || math.IsNaN(f) {
			f = 1.5
		}
		return strconv.FormatFloat(f, 'g', -1, 64)
	case 1: // a short decimal
		return strconv.Itoa(r.IntN(100000)) + "." + strconv.Itoa(r.IntN(1000))
	case 2: // with an exponent
		return strconv.Itoa(r.IntN(1000000)+1) + "e" + strconv.Itoa(r.IntN(80)-40)
	default: // a float in a sensible range
		return strconv.FormatFloat(r.Float64()*math.Pow(10, float64(r.IntN(12)-6)), 'g', -1, 64)
	}
}

func TestExactFloat64MatchesRat(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 20000; i++ {
		a, b := randomDecimal(r), randomDecimal(r)
		x, ok1 := parseExact(a)
		y, ok2 := parseExact(b)
		if !ok1 || !ok2 {
			t.Fatalf("parseExact refuses %q or %q", a, b)
		}
		ra, rb := ratOfText(t, a), ratOfText(t, b)
		for _, c := range []struct {
			op   string
			got  float64
			want *big.Rat
		}{
			{"x", x.float64(), ra},
			{"x*y", mulExact(x, y).float64(), new(big.Rat).Mul(ra, rb)},
			{"x/y", quoExact(x, y).float64(), new(big.Rat).Quo(ra, rb)},
			{"x+y", addExact(x, y).float64(), new(big.Rat).Add(ra, rb)},
			{"x-y", addExact(x, negExact(y)).float64(), new(big.Rat).Sub(ra, rb)},
		} {
			want, _ := c.want.Float64()
			if math.Float64bits(c.got) != math.Float64bits(want) {
				t.Fatalf("x = %s, y = %s: %s = %v, math/big gives %v", a, b, c.op, c.got, want)
			}
		}
	}
}

// Hand-checked roundings: a tie rounds to even, a hair above a tie rounds
// up, the subnormals and the largest float64 and beyond.
func TestExactFloat64Rounding(t *testing.T) {
	for _, c := range []struct {
		text string
		want float64
	}{
		{"9007199254740993", 9007199254740992},            // 2**53+1: a tie, to even (down)
		{"9007199254740995", 9007199254740996},            // 2**53+3: a tie, to even (up)
		{"9007199254740993.0000000001", 9007199254740994}, // above the tie
		{"0.1", 0.1},
		{"4.9406564584124654e-324", math.SmallestNonzeroFloat64},
		{"2.4703282292062328e-324", math.SmallestNonzeroFloat64}, // above half the smallest: up
		{"2.4703282292062327e-324", 0},                           // below half: down
		{"2.2250738585072011e-308", 2.225073858507201e-308},      // the largest subnormal
		{"1.7976931348623157e308", math.MaxFloat64},
		{"1.7976931348623159e308", math.Inf(1)}, // past the largest's half-way: +Inf
		{"-0", 0},                               // a fraction has no -0, as math/big's Rat
		{"1e-5000", 0},
	} {
		x, ok := parseExact(c.text)
		if !ok {
			t.Fatalf("parseExact refuses %q", c.text)
		}
		if got := x.float64(); math.Float64bits(got) != math.Float64bits(c.want) {
			t.Errorf("%s: got %v (%x), want %v (%x)", c.text, got, math.Float64bits(got), c.want, math.Float64bits(c.want))
		}
		if want, _ := ratOfText(t, c.text).Float64(); math.Float64bits(want) != math.Float64bits(c.want) {
			t.Errorf("%s: math/big gives %v, the test wants %v", c.text, want, c.want)
		}
	}
}

func TestParseExactForms(t *testing.T) {
	for _, c := range []struct {
		text string
		want string // as math/big's Rat prints it; "" = refused
	}{
		{"+1.5", "3/2"}, {".5", "1/2"}, {"5.", "5/1"}, {"1e+2", "100/1"}, {"1_000.5", "2001/2"}, {"-0.25e1", "-5/2"},
		{"0x1.8p1", "3/1"}, {"-0x1p-2", "-1/4"},
		{"", ""}, {".", ""}, {"-", ""}, {"inf", ""}, {"NaN", ""}, {"1.2.3", ""}, {"1e", ""}, {"1/3", ""}, {"1e99999999999999999999", ""},
	} {
		x, ok := parseExact(c.text)
		if c.want == "" {
			if ok {
				t.Errorf("%q: read, want refused", c.text)
			}
			continue
		}
		if !ok {
			t.Errorf("%q: refused", c.text)
			continue
		}
		got := new(big.Rat).SetFrac(new(big.Int).SetBits(words(x.num)), new(big.Int).SetBits(words(x.den)))
		if x.neg {
			got.Neg(got)
		}
		if got.String() != c.want {
			t.Errorf("%q: got %s, want %s", c.text, got, c.want)
		}
	}
}

// words is z as math/big's words, for the comparison.
func words(z nat) []big.Word {
	var b big.Int
	for i := len(z) - 1; i >= 0; i-- {
		b.Lsh(&b, 32)
		b.Or(&b, big.NewInt(int64(z[i])))
	}
	return b.Bits()
}

func TestExactFloatStringMatchesRat(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 5000; i++ {
		a := randomDecimal(r)
		if r.IntN(2) == 0 {
			a = "-" + a
		}
		x, _ := parseExact(a)
		places := r.IntN(8)
		if got, want := x.floatString(places), ratOfText(t, a).FloatString(places); got != want {
			t.Fatalf("%s to %d places: got %s, math/big gives %s", a, places, got, want)
		}
	}
}

func TestNatDecimalString(t *testing.T) {
	x, _ := parseExact("123456789012345678901234567890000000001")
	if got := x.num.decimalString(); got != "123456789012345678901234567890000000001" {
		t.Errorf("got %s", got)
	}
	if got := nat(nil).decimalString(); got != "0" {
		t.Errorf("zero: got %s", got)
	}
}
