// Package usec converts times to the engine's unit, whole microseconds:
// decimal text exactly (on its digits, with no binary floating-point
// error), a JSON value through its shortest decimal, and a drawn duration
// cheaply ([FromMS]; [Round], the engine's draws, never below 0), all
// rounded half away from zero and bounded; and back to the result's
// milliseconds ([ToMS], [Round6]).
package usec

import (
	"math"
	"strconv"
	"strings"
)

// Max bounds every time and duration of a scenario (about 11.6 days of
// simulated time), so that sums of times can never overflow an int64
// (core.MaxTimeUS).
const Max = 1_000_000_000_000

// ParseMS converts a decimal number of milliseconds, given as text, to whole
// microseconds, rounding halves away from zero. The conversion is exact: it
// works on the decimal digits, so "1.0005" gives 1001 (1000.5 rounded), with no
// binary floating-point error. Exponents ("1.5e3") are accepted. Negative
// values are returned as such; callers that forbid them check the sign.
func ParseMS(text string) (int64, error) {
	return Parse(text, 3)
}

// FromMS converts a duration in milliseconds drawn by a sampler to whole
// microseconds: float64(ms*1000) rounded half away from zero, clamped to
// [-Max, Max]. It is cheap and allocation-free, for per-request use.
func FromMS(ms float64) int64 {
	x := float64(ms * 1000)
	if !(x > -Max && x < Max) { // NaN, or clamped
		return msClampUS(x)
	}
	// math.Round(x), cheaper and with no branch on the fraction (a coin
	// toss): the conversion truncates toward zero, exactly as |x| < 2^52; the
	// fraction f = x - i is exact too, and so is 2f, which truncates to 1
	// when f >= 0.5, to -1 when f <= -0.5, else to 0: halves away from zero.
	i := int64(x)
	return i + int64(2*(x-float64(i)))
}

// Round rounds a time in microseconds (a drawn duration, scaled) to whole
// ones, halves away from zero, never below 0, at most MaxInt64/2 (the
// engine checks its times against Max where they are used).
func Round(x float64) int64 {
	if !(x > 0) {
		return 0
	}
	if x >= math.MaxInt64/2 {
		return math.MaxInt64 / 2
	}
	// math.Round(x) for 0 < x < 2^62, in fewer instructions: the
	// conversion truncates, x - i is exact (i <= x < i+1), and a half or
	// more rounds up. float64(x) rounds a product passed in (Round(ms *
	// 1000)) before the subtraction: unconverted, arm64 fuses the two into
	// one multiply-subtract, which skips that rounding.
	i := int64(x)
	return i + int64(b2i(float64(x)-float64(i) >= 0.5))
}

// b2i is 1 for true, 0 for false, without a branch.
func b2i(b bool) int {
	var i int
	if b {
		i = 1
	}
	return i
}

// msClampUS is FromMS of a NaN (0) or of an x of Max microseconds or more
// in magnitude.
func msClampUS(x float64) int64 {
	switch {
	case x >= Max:
		return Max
	case x <= -Max:
		return -Max
	}
	return 0
}

// FromMSValue converts a millisecond value read from JSON. It goes through the
// shortest decimal text that reads back as v, which is the text the user wrote
// for any number of up to 15 significant digits, so JSON values convert as
// exactly as CSV cells do.
func FromMSValue(v float64) (int64, error) {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, ErrNotNumber
	}
	return ParseMS(strconv.FormatFloat(v, 'g', -1, 64))
}

// Problem words the problem of a converted time (us, err) for a message
// that follows a field name: not a number, too large or negative; "" when it
// is fine.
func Problem(us int64, err error) string {
	if err != nil {
		return err.Error()
	}
	if us < 0 {
		return "must be >= 0"
	}
	return ""
}

// Error is a problem with a time value, worded to follow a field name.
type Error string

// Error returns the problem's words.
func (e Error) Error() string { return string(e) }

// The problems of a time's text.
const (
	ErrNotNumber = Error("not a number")
	ErrTooLarge  = Error("too large (the limit is 1e12 us, 1e9 ms)")
)

// Parse converts decimal text to whole microseconds by multiplying it by
// 10^shift: 3 for milliseconds, 6 for seconds, 0 for microseconds.
func Parse(text string, shift int) (int64, error) {
	if v, ok := ParsePlain(text, shift); ok {
		return v, nil
	}
	return parseDecimal(text, shift)
}

// parseDecimal is Parse of any decimal text.
func parseDecimal(text string, shift int) (int64, error) {
	neg, digits, exp, ok := SplitSigned(text)
	if !ok {
		return 0, ErrNotNumber
	}
	mag, err := scaleDigits(digits, exp+shift)
	if err != nil {
		return 0, err
	}
	if neg {
		return -mag, nil
	}
	return mag, nil
}

// pow10 are the powers of ten up to 10^18.
var pow10 = [...]int64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18}

// maxTimes10 is Max / 10^e for each e of pow10: the largest n that n × 10^e
// keeps within Max (a division ParsePlain makes each row otherwise).
var maxTimes10 = func() (m [len(pow10)]int64) {
	for e, p := range pow10 {
		m[e] = Max / p
	}
	return m
}()

// ParsePlain is Parse of the text most cells hold, digits with at most one
// decimal point ("12", "0.5", "1234.567"), with no sign, exponent or
// blank, up to 18 digits, and a shift of 0 to 18: the same value, with no
// copy of the text. ok is false for any other text, and for a value over
// Max, which Parse words.
func ParsePlain(text string, shift int) (int64, bool) {
	if len(text) == 0 || len(text) > 19 || uint(shift) > 18 {
		return 0, false
	}
	var n int64
	i := 0
	for ; i < len(text); i++ {
		d := text[i] - '0'
		if d > 9 {
			break
		}
		n = n*10 + int64(d)
	}
	digits, frac := i, 0
	if i < len(text) {
		if text[i] != '.' {
			return 0, false
		}
		for i++; i < len(text); i++ {
			d := text[i] - '0'
			if d > 9 {
				return 0, false
			}
			n = n*10 + int64(d)
			frac++
		}
		digits += frac
	}
	if digits == 0 || digits > 18 {
		return 0, false
	}
	e := shift - frac // value = n × 10^e
	var v int64
	if e >= 0 {
		if n > maxTimes10[e] {
			return 0, false
		}
		v = n * pow10[e]
	} else {
		d := pow10[-e]
		v = n / d
		if 2*(n-v*d) >= d {
			v++
		}
	}
	if v > Max {
		return 0, false
	}
	return v, true
}

// SplitSigned reads decimal text with an optional sign, blanks around it
// allowed ("-123.45e-6"): whether it is negative, and its significant digits
// (leading zeros dropped) and a power of ten, value = digits × 10^exp; ok is
// false when the text is not such a number.
func SplitSigned(text string) (neg bool, digits string, exp int, ok bool) {
	s := strings.TrimSpace(text)
	if s != "" && (s[0] == '-' || s[0] == '+') {
		neg = s[0] == '-'
		s = s[1:]
	}
	digits, exp, ok = splitDecimal(s)
	return neg, digits, exp, ok
}

// splitDecimal reads unsigned decimal text "123.45e-6" into its significant
// digits (leading zeros dropped) and a power of ten: value = digits × 10^exp.
func splitDecimal(s string) (digits string, exp int, ok bool) {
	mant, expText, hasExp := strings.Cut(strings.ToLower(s), "e")
	if hasExp {
		e, err := strconv.Atoi(expText)
		if err != nil || e > 1000 || e < -1000 {
			return "", 0, false
		}
		exp = e
	}
	intPart, frac, _ := strings.Cut(mant, ".")
	if intPart == "" && frac == "" {
		return "", 0, false
	}
	all := intPart + frac
	for i := 0; i < len(all); i++ {
		if all[i] < '0' || all[i] > '9' {
			return "", 0, false
		}
	}
	exp -= len(frac)
	return strings.TrimLeft(all, "0"), exp, true
}

// scaleDigits returns digits × 10^exp rounded half away from zero, or an
// error when it exceeds Max.
func scaleDigits(digits string, exp int) (int64, error) {
	if digits == "" {
		return 0, nil
	}
	if exp >= 0 {
		if len(digits)+exp > 13 {
			return 0, ErrTooLarge
		}
		v, err := boundedUS(digits)
		for ; err == nil && exp > 0; exp-- {
			if v *= 10; v > Max {
				err = ErrTooLarge
			}
		}
		return v, err
	}
	cut := len(digits) + exp // digits before the decimal point
	if cut <= 0 {
		if cut == 0 && digits[0] >= '5' {
			return 1, nil
		}
		return 0, nil
	}
	if cut > 13 {
		return 0, ErrTooLarge
	}
	v, err := boundedUS(digits[:cut])
	if err != nil {
		return 0, err
	}
	if digits[cut] >= '5' {
		v++
	}
	if v > Max {
		return 0, ErrTooLarge
	}
	return v, nil
}

func boundedUS(intDigits string) (int64, error) {
	v, err := strconv.ParseInt(intDigits, 10, 64)
	if err != nil || v > Max {
		return 0, ErrTooLarge
	}
	return v, nil
}

// MaxText words Max for messages.
const MaxText = "1e9 ms, about 11.6 days"

// FormatMS writes a time in microseconds as milliseconds, exactly (the
// shortest decimal: 1500 is "1.5").
func FormatMS(us int64) string {
	return strconv.FormatFloat(float64(us)/1000, 'f', -1, 64)
}

// ToMS converts microseconds to the result's milliseconds, exactly
// representable to 6 decimals.
func ToMS(us int64) float64 { return Round6(float64(us) / 1000) }

// Round6 rounds x to 6 decimals, so that the result's JSON is stable and
// readable; a NaN or an infinity is 0.
func Round6(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return 0
	}
	return math.Round(x*1e6) / 1e6
}
