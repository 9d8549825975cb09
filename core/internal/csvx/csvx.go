// Package csvx writes the cells of the CSV files tuxlb hands out (the
// dispatch log, a sweep's table): quoted as RFC 4180 wants, and safe to open
// in a spreadsheet.
package csvx

import "strings"

// csvClass tells, for each byte, whether a CSV cell holding it must be
// quoted (csvQuote) and whether a cell starting with it is neutralised as a
// formula (csvFormula).
var csvClass = func() (c [256]uint8) {
	for _, x := range []byte(",\"\r\n") {
		c[x] |= csvQuote
	}
	for _, x := range []byte("=+-@\t\r") {
		c[x] |= csvFormula
	}
	return c
}()

// The flags of csvClass.
const (
	csvQuote   = 1
	csvFormula = 2
)

// AppendField appends text cell s, quoted as RFC 4180 wants when it needs
// to be. A cell that starts with =, +, -, @, a tab or a carriage return gets
// a leading apostrophe, so that a spreadsheet opening the file shows it as
// text instead of running it as a formula (CSV injection).
func AppendField(b []byte, s string) []byte {
	plain := s == "" || csvClass[s[0]]&csvFormula == 0
	for i := 0; i < len(s) && plain; i++ {
		plain = csvClass[s[i]]&csvQuote == 0
	}
	if plain { // the usual cell: one pass over its bytes, copied as they are
		return append(b, s...)
	}
	if strings.IndexByte("=+-@\t\r", s[0]) >= 0 {
		s = "'" + s
	}
	if !strings.ContainsAny(s, ",\"\r\n") {
		return append(b, s...)
	}
	b = append(b, '"')
	b = append(b, strings.ReplaceAll(s, `"`, `""`)...)
	return append(b, '"')
}
