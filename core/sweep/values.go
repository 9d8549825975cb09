package sweep

import (
	"strings"

	"github.com/tuxlb/tuxlb/core/diag"
)

// MaxValues bounds the values one varied key takes.
const MaxValues = 1000

// parseValues reads the VALUES of `--vary KEY=VALUES`: a list `a,b,c`
// or an inclusive range `start..end/step`. A range is computed on exact
// decimals (0.1..0.3/0.1 is 0.1, 0.2, 0.3, never 0.30000000000000004); it
// counts down when start > end (the step is always > 0). Values are returned
// as written (a list) or as the shortest decimal text (a range).
func parseValues(key, text string) ([]string, error) {
	text = strings.TrimSpace(text)
	if text == "" {
		return nil, diag.Errorf(diag.EINVALID, "vary %s: no values (want a,b,c or start..end/step)", key)
	}
	var vals []string
	if strings.Contains(text, "..") {
		var err error
		if vals, err = parseRange(key, text); err != nil {
			return nil, err
		}
	} else {
		for _, v := range strings.Split(text, ",") {
			v = strings.TrimSpace(v)
			if v == "" {
				return nil, diag.Errorf(diag.EINVALID, "vary %s: empty value in %q", key, text)
			}
			vals = append(vals, v)
		}
	}
	if len(vals) > MaxValues {
		return nil, diag.Errorf(diag.EINVALID, "vary %s: %d values, more than the limit of %d", key, len(vals), MaxValues)
	}
	seen := map[string]bool{}
	for _, v := range vals {
		if seen[v] {
			return nil, diag.Errorf(diag.EINVALID, "vary %s: value %s given twice", key, v)
		}
		seen[v] = true
	}
	return vals, nil
}

// parseRange reads start..end/step.
func parseRange(key, text string) ([]string, error) {
	bad := func(why string) error {
		return diag.Errorf(diag.EINVALID, "vary %s: range %q: %s (want start..end/step, e.g. 0.5..1.5/0.25)", key, text, why)
	}
	from, rest, _ := strings.Cut(text, "..")
	to, stepText, ok := strings.Cut(rest, "/")
	if !ok {
		return nil, bad("no /step")
	}
	start, ok1 := decimalRat(from)
	end, ok2 := decimalRat(to)
	step, ok3 := decimalRat(stepText)
	switch {
	case !ok1:
		return nil, bad("start is not a decimal number")
	case !ok2:
		return nil, bad("end is not a decimal number")
	case !ok3:
		return nil, bad("step is not a decimal number")
	case step.sign() <= 0:
		return nil, bad("step must be > 0")
	}
	places := max(decimalPlaces(from), decimalPlaces(stepText))
	count := 1
	span := addExact(end, negExact(start))
	down := span.sign() < 0
	span.neg = false
	// n = floor(span/step) + 1, bounded before it is allocated.
	if n := floorQuo(span, step); natCmp(n, natOf(MaxValues)) >= 0 {
		return nil, diag.Errorf(diag.EINVALID, "vary %s: range %q has more than the limit of %d values", key, text, MaxValues)
	} else if len(n) > 0 {
		count = int(n[0]) + 1
	}
	if down {
		step = negExact(step)
	}
	// start and step over one denominator, so that the sums keep it
	x := exact{neg: start.neg, num: natMul(start.num, step.den), den: natMul(start.den, step.den)}
	step = exact{neg: step.neg, num: natMul(step.num, start.den), den: x.den}
	vals := make([]string, 0, count)
	for i := 0; i < count; i++ {
		vals = append(vals, trimDecimal(x.floatString(places)))
		x = addExact(x, step)
	}
	return vals, nil
}

// decimalRat reads a plain decimal number ("-1.25", "3", ".5") exactly.
func decimalRat(s string) (exact, bool) {
	s = strings.TrimSpace(s)
	if s == "" || strings.ContainsAny(s, "eExX/") {
		return exact{}, false
	}
	return parseExact(s)
}

// decimalPlaces counts the digits after the decimal point of s.
func decimalPlaces(s string) int {
	_, frac, ok := strings.Cut(strings.TrimSpace(s), ".")
	if !ok {
		return 0
	}
	return len(frac)
}

// trimDecimal drops trailing zeros after a decimal point, and the point
// itself when nothing follows it; "-0" becomes "0".
func trimDecimal(s string) string {
	if strings.Contains(s, ".") {
		s = strings.TrimRight(s, "0")
		s = strings.TrimSuffix(s, ".")
	}
	if s == "-0" {
		return "0"
	}
	return s
}
