package core

import (
	"math"
	"strconv"
	"strings"
)

// MaxTimeUS bounds every time and duration of a scenario (about 11.6 days of
// simulated time), so that sums of times can never overflow an int64.
const MaxTimeUS = 1_000_000_000_000

// msToUS converts a decimal number of milliseconds, given as text, to whole
// microseconds, rounding halves away from zero. The conversion is exact: it
// works on the decimal digits, so "1.0005" gives 1001 (1000.5 rounded), with no
// binary floating-point error. Exponents ("1.5e3") are accepted. Negative
// values are returned as such; callers that forbid them check the sign.
func msToUS(text string) (int64, error) {
	return decimalToUS(text, 3)
}

// msFloatToUS converts a duration in milliseconds drawn by a Sampler to whole
// microseconds: float64(ms*1000) rounded half away from zero, clamped to
// [-MaxTimeUS, MaxTimeUS]. It is cheap and allocation-free, for per-request use.
func msFloatToUS(ms float64) int64 {
	x := float64(ms * 1000)
	if !(x > -MaxTimeUS && x < MaxTimeUS) { // NaN, or clamped
		return msClampUS(x)
	}
	// math.Round(x), cheaper and with no branch on the fraction (a coin
	// toss): the conversion truncates toward zero, exactly as |x| < 2^52; the
	// fraction f = x - i is exact too, and so is 2f, which truncates to 1
	// when f >= 0.5, to -1 when f <= -0.5, else to 0: halves away from zero.
	i := int64(x)
	return i + int64(2*(x-float64(i)))
}

// msClampUS is msFloatToUS of a NaN (0) or of an x of MaxTimeUS microseconds
// or more in magnitude.
func msClampUS(x float64) int64 {
	switch {
	case x >= MaxTimeUS:
		return MaxTimeUS
	case x <= -MaxTimeUS:
		return -MaxTimeUS
	}
	return 0
}

// msValueToUS converts a millisecond value read from JSON. It goes through the
// shortest decimal text that reads back as v, which is the text the user wrote
// for any number of up to 15 significant digits, so JSON values convert as
// exactly as CSV cells do.
func msValueToUS(v float64) (int64, error) {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, errNotNumber
	}
	return msToUS(strconv.FormatFloat(v, 'g', -1, 64))
}

// timeError is a problem with a time value, worded to follow a field name.
type timeError string

func (e timeError) Error() string { return string(e) }

const (
	errNotNumber = timeError("not a number")
	errTooLarge  = timeError("too large (the limit is 1e12 us, 1e9 ms)")
)

// decimalToUS converts decimal text to whole microseconds by multiplying it by
// 10^shift: 3 for milliseconds, 6 for seconds, 0 for microseconds.
func decimalToUS(text string, shift int) (int64, error) {
	neg, digits, exp, ok := splitSigned(text)
	if !ok {
		return 0, errNotNumber
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

// splitSigned reads decimal text with an optional sign, blanks around it
// allowed: whether it is negative, and its digits and power of ten as
// splitDecimal gives them.
func splitSigned(text string) (neg bool, digits string, exp int, ok bool) {
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
// error when it exceeds MaxTimeUS.
func scaleDigits(digits string, exp int) (int64, error) {
	if digits == "" {
		return 0, nil
	}
	if exp >= 0 {
		if len(digits)+exp > 13 {
			return 0, errTooLarge
		}
		v, err := boundedUS(digits)
		for ; err == nil && exp > 0; exp-- {
			if v *= 10; v > MaxTimeUS {
				err = errTooLarge
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
		return 0, errTooLarge
	}
	v, err := boundedUS(digits[:cut])
	if err != nil {
		return 0, err
	}
	if digits[cut] >= '5' {
		v++
	}
	if v > MaxTimeUS {
		return 0, errTooLarge
	}
	return v, nil
}

func boundedUS(intDigits string) (int64, error) {
	v, err := strconv.ParseInt(intDigits, 10, 64)
	if err != nil || v > MaxTimeUS {
		return 0, errTooLarge
	}
	return v, nil
}
