package sweep

import (
	"math"
	"math/bits"
	"strconv"
	"strings"
)

// The sweep keys compute on exact numbers: a range's values (0.1..0.3/0.1
// is 0.1, 0.2, 0.3), a rate scaled by a factor (200 x 1.1 is 220) and a
// think time scaled to a new mean. This file holds the little exact
// arithmetic they need, in place of math/big (which weighed a tenth of the
// playground's WebAssembly download): an unsigned integer of any size
// (nat), a signed fraction of two of them (exact), decimal text read into
// one, and a fraction rounded to the nearest float64 as math/big's
// Rat.Float64 rounds it (to nearest, ties to even).

// nat is an unsigned integer of any size, little-endian 32-bit limbs
// without high zero limbs (zero is the empty slice).
type nat []uint32

func (z nat) norm() nat {
	for len(z) > 0 && z[len(z)-1] == 0 {
		z = z[:len(z)-1]
	}
	return z
}

func natOf(x uint64) nat { return nat{uint32(x), uint32(x >> 32)}.norm() }

// mulAdd returns z*m + a.
func (z nat) mulAdd(m, a uint32) nat {
	out := make(nat, len(z)+1)
	carry := uint64(a)
	for i, d := range z {
		t := uint64(d)*uint64(m) + carry
		out[i], carry = uint32(t), t>>32
	}
	out[len(z)] = uint32(carry)
	return out.norm()
}

// natMul returns x*y.
func natMul(x, y nat) nat {
	if len(x) == 0 || len(y) == 0 {
		return nil
	}
	out := make(nat, len(x)+len(y))
	for i, a := range x {
		var carry uint64
		for j, b := range y {
			t := uint64(a)*uint64(b) + uint64(out[i+j]) + carry
			out[i+j], carry = uint32(t), t>>32
		}
		out[i+len(y)] = uint32(carry)
	}
	return out.norm()
}

// natCmp compares x and y: -1, 0 or +1.
func natCmp(x, y nat) int {
	if len(x) != len(y) {
		if len(x) < len(y) {
			return -1
		}
		return 1
	}
	for i := len(x) - 1; i >= 0; i-- {
		if x[i] != y[i] {
			if x[i] < y[i] {
				return -1
			}
			return 1
		}
	}
	return 0
}

// natAdd returns x+y.
func natAdd(x, y nat) nat {
	if len(x) < len(y) {
		x, y = y, x
	}
	out := make(nat, len(x)+1)
	var carry uint32
	for i := range x {
		var b uint32
		if i < len(y) {
			b = y[i]
		}
		s, c1 := bits.Add32(x[i], b, carry)
		out[i], carry = s, c1
	}
	out[len(x)] = carry
	return out.norm()
}

// natSub returns x-y, for x >= y.
func natSub(x, y nat) nat {
	out := make(nat, len(x))
	var borrow uint32
	for i := range x {
		var b uint32
		if i < len(y) {
			b = y[i]
		}
		out[i], borrow = bits.Sub32(x[i], b, borrow)
	}
	return out.norm()
}

// bitLen is the number of bits of x (0 for zero).
func (z nat) bitLen() int {
	if len(z) == 0 {
		return 0
	}
	return 32*(len(z)-1) + bits.Len32(z[len(z)-1])
}

func (z nat) bit(i int) uint32 { return z[i/32] >> (i % 32) & 1 }

// natShl returns x << s.
func natShl(x nat, s int) nat {
	if len(x) == 0 {
		return nil
	}
	words, sh := s/32, uint(s%32)
	out := make(nat, len(x)+words+1)
	for i, d := range x {
		out[i+words] |= d << sh
		if sh > 0 {
			out[i+words+1] = d >> (32 - sh)
		}
	}
	return out.norm()
}

// natDivMod returns x/y and x%y, for y > 0, by binary long division (the
// numbers here have at most a few thousand bits).
func natDivMod(x, y nat) (q, r nat) {
	if natCmp(x, y) < 0 {
		return nil, x
	}
	q = make(nat, len(x))
	r = make(nat, 0, len(y)+1)
	for i := x.bitLen() - 1; i >= 0; i-- {
		// r = r<<1 | bit i of x, in place
		carry := x.bit(i)
		for j := range r {
			r[j], carry = r[j]<<1|carry, r[j]>>31
		}
		if carry != 0 {
			r = append(r, carry)
		}
		if natCmp(r, y) >= 0 {
			var borrow uint32
			for j := range r {
				var b uint32
				if j < len(y) {
					b = y[j]
				}
				r[j], borrow = bits.Sub32(r[j], b, borrow)
			}
			r = r.norm()
			q[i/32] |= 1 << (i % 32)
		}
	}
	return q.norm(), r
}

// pow10 is 10**n.
func pow10(n int) nat {
	z := nat{1}
	for ; n >= 9; n -= 9 {
		z = z.mulAdd(1e9, 0)
	}
	for ; n > 0; n-- {
		z = z.mulAdd(10, 0)
	}
	return z
}

// decimalString is z in decimal.
func (z nat) decimalString() string {
	if len(z) == 0 {
		return "0"
	}
	var chunks []uint32
	billion := nat{1e9}
	for len(z) > 0 {
		var r nat
		z, r = natDivMod(z, billion)
		var c uint32
		if len(r) > 0 {
			c = r[0]
		}
		chunks = append(chunks, c)
	}
	var b strings.Builder
	b.WriteString(strconv.FormatUint(uint64(chunks[len(chunks)-1]), 10))
	for i := len(chunks) - 2; i >= 0; i-- {
		s := strconv.FormatUint(uint64(chunks[i]), 10)
		b.WriteString(strings.Repeat("0", 9-len(s)))
		b.WriteString(s)
	}
	return b.String()
}

// exact is the fraction ±num/den (den > 0, not reduced).
type exact struct {
	neg      bool
	num, den nat
}

func (x exact) sign() int {
	switch {
	case len(x.num) == 0:
		return 0
	case x.neg:
		return -1
	}
	return 1
}

func mulExact(x, y exact) exact {
	return exact{neg: x.neg != y.neg, num: natMul(x.num, y.num), den: natMul(x.den, y.den)}
}

// quoExact is x/y, for y != 0.
func quoExact(x, y exact) exact {
	return exact{neg: x.neg != y.neg, num: natMul(x.num, y.den), den: natMul(x.den, y.num)}
}

// addExact is x+y (over their denominator when they share it).
func addExact(x, y exact) exact {
	a, b, den := x.num, y.num, x.den
	if natCmp(x.den, y.den) != 0 {
		a, b, den = natMul(x.num, y.den), natMul(y.num, x.den), natMul(x.den, y.den)
	}
	if x.neg == y.neg {
		return exact{neg: x.neg, num: natAdd(a, b), den: den}
	}
	if natCmp(a, b) >= 0 {
		return exact{neg: x.neg, num: natSub(a, b), den: den}
	}
	return exact{neg: y.neg, num: natSub(b, a), den: den}
}

func negExact(x exact) exact { x.neg = !x.neg; return x }

// minExp bounds a decimal's exponent from below: a number under 10**-1100
// (nonzero) is read as ±10**-1100. Nothing changes by it: the numbers the
// keys meet are float64s (under 10**309 and their reciprocals under
// 10**324, 17 digits) or such decimal text, and a product or quotient of
// them with a number under 10**-1100 is under 10**-400, which rounds to 0
// either way.
const minExp = -1100

// parseExact reads a number as strconv.ParseFloat accepts it (optional
// sign, digits with an optional point and underscores between them, an
// optional exponent; a hexadecimal float is taken as the float64 it
// parses to) exactly. It refuses infinities, NaN and anything else.
func parseExact(s string) (exact, bool) {
	var x exact
	if s != "" && (s[0] == '+' || s[0] == '-') {
		x.neg = s[0] == '-'
		s = s[1:]
	}
	if len(s) > 1 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') {
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsInf(f, 0) {
			return x, false
		}
		fx := floatExact(f)
		fx.neg = x.neg
		return fx, true
	}
	mant, expText, hasExp := strings.Cut(strings.ToLower(s), "e")
	mant = strings.ReplaceAll(mant, "_", "")
	intPart, frac, _ := strings.Cut(mant, ".")
	digits := intPart + frac
	if digits == "" || strings.Trim(digits, "0123456789") != "" {
		return x, false
	}
	exp := -len(frac)
	if hasExp {
		e, err := strconv.Atoi(strings.ReplaceAll(expText, "_", ""))
		switch {
		case err != nil && strings.HasPrefix(expText, "-"):
			e = -1 << 40 // under 10**minExp whatever the digits
		case err != nil:
			return x, false
		}
		exp += max(e, -1<<40)
		if exp > 1000 {
			return x, false // over 10**1000: no float64, no range's value
		}
	}
	digits = strings.TrimLeft(digits, "0")
	if digits == "" {
		return exact{num: nil, den: nat{1}}, true
	}
	// the value is 0.digits × 10**(exp+len(digits)); under 10**minExp it
	// becomes 10**minExp
	if exp+len(digits) < minExp {
		digits, exp = "1", minExp
	}
	n := nat(nil)
	for len(digits) > 0 {
		k := min(9, len(digits))
		c, _ := strconv.ParseUint(digits[:k], 10, 32)
		m := uint32(10)
		for i := 1; i < k; i++ {
			m *= 10
		}
		n = n.mulAdd(m, uint32(c))
		digits = digits[k:]
	}
	x.num, x.den = n, nat{1}
	if exp >= 0 {
		x.num = natMul(n, pow10(exp))
	} else {
		x.den = pow10(-exp)
	}
	return x, true
}

// floatExact is the finite float64 f exactly.
func floatExact(f float64) exact {
	x := exact{neg: math.Signbit(f), den: nat{1}}
	f = math.Abs(f)
	if f == 0 {
		return x
	}
	fr, e := math.Frexp(f) // f = fr × 2**e, 0.5 <= fr < 1
	m := uint64(fr * (1 << 53))
	e -= 53
	x.num = natOf(m)
	if e >= 0 {
		x.num = natShl(x.num, e)
	} else {
		x.den = natShl(nat{1}, -e)
	}
	return x
}

// float64 is x rounded to the nearest float64 (ties to even), ±Inf past
// the largest, as math/big's Rat.Float64.
func (x exact) float64() float64 {
	if len(x.num) == 0 {
		if x.neg {
			return math.Copysign(0, -1)
		}
		return 0
	}
	// q = floor(num × 2**s / den) with exactly 64 bits
	s := 64 - (x.num.bitLen() - x.den.bitLen())
	q, r := scaledQuo(x.num, x.den, s)
	if q.bitLen() > 64 {
		s--
		q, r = scaledQuo(x.num, x.den, s)
	} else if q.bitLen() < 64 {
		s++
		q, r = scaledQuo(x.num, x.den, s)
	}
	var f float64
	switch e := 63 - s; { // the exponent of q's top bit in the value
	case e > 1023:
		f = math.Inf(1)
	case e < -1022:
		// a subnormal: round to a whole number of 2**-1074 directly
		q, r = scaledQuo(x.num, x.den, 1074)
		u := uint64(0)
		if len(q) > 0 {
			u = uint64(q[0])
			if len(q) > 1 {
				u |= uint64(q[1]) << 32
			}
		}
		if c := natCmp(natShl(r, 1), x.den); c > 0 || c == 0 && u&1 == 1 {
			u++
		}
		f = math.Float64frombits(u)
	default:
		u := uint64(q[0]) | uint64(q[1])<<32
		if len(r) > 0 {
			u |= 1 // sticky: round to odd keeps the rounding to 53 bits right
		}
		f = math.Ldexp(float64(u), -s)
	}
	if x.neg {
		f = -f
	}
	return f
}

// scaledQuo is floor(num × 2**s / den) and its remainder.
func scaledQuo(num, den nat, s int) (q, r nat) {
	if s >= 0 {
		return natDivMod(natShl(num, s), den)
	}
	q, r = natDivMod(num, natShl(den, -s))
	return q, r
}

// floatString is x, a multiple of 10**-places, in decimal with places
// digits after the point (none when places is 0).
func (x exact) floatString(places int) string {
	q, r := natDivMod(natMul(x.num, pow10(places)), x.den)
	if c := natCmp(natShl(r, 1), x.den); c >= 0 { // halves away from zero, as Rat.FloatString
		q = natAdd(q, nat{1})
	}
	digits := q.decimalString()
	if places > 0 {
		if len(digits) <= places {
			digits = strings.Repeat("0", places-len(digits)+1) + digits
		}
		digits = digits[:len(digits)-places] + "." + digits[len(digits)-places:]
	}
	if x.neg && len(x.num) > 0 {
		digits = "-" + digits
	}
	return digits
}

// floorQuo is floor(x/y) for x >= 0, y > 0.
func floorQuo(x, y exact) nat {
	q, _ := natDivMod(natMul(x.num, y.den), natMul(x.den, y.num))
	return q
}
