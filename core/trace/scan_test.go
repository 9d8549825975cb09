package trace

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// csvRecords reads text as the scanner's reference, encoding/csv with
// TrimLeadingSpace, going on past each record's problem.
func csvRecords(text string, comma rune) []string {
	rd := csv.NewReader(strings.NewReader(text))
	rd.Comma, rd.FieldsPerRecord, rd.TrimLeadingSpace = comma, -1, true
	var out []string
	for {
		rec, err := rd.Read()
		var pe *csv.ParseError
		switch {
		case errors.Is(err, io.EOF):
			return out
		case errors.As(err, &pe):
			out = append(out, fmt.Sprintf("error start %d line %d col %d: %v", pe.StartLine, pe.Line, pe.Column, pe.Err))
		case err != nil:
			out = append(out, "error "+err.Error())
		default:
			out = append(out, fmt.Sprintf("%q", rec))
		}
	}
}

func scanRecords(text string, comma rune) []string {
	s := &scanner{text: text, comma: comma}
	var out []string
	for {
		rec, perr, ok := s.next()
		switch {
		case !ok:
			return out
		case perr != nil:
			out = append(out, fmt.Sprintf("error start %d line %d col %d: %s", perr.start, perr.line, perr.col, perr.msg))
		default:
			out = append(out, fmt.Sprintf("%q", rec))
		}
	}
}

// The scanner reads every text as encoding/csv does: the same fields, the
// same problems at the same line and column, the same records after them.
func TestScannerMatchesEncodingCSV(t *testing.T) {
	cases := []string{
		"a,b\n1,2\n", "a,b\r\n1,2\r\n", "a,b\n\n\n1,2", "a, b\n 1 ,\t2\r", `a,"b"` + "\n" + `"1","2"`,
		`"a""b",c` + "\n", "\"a\nb\",c\n1,2\n", "\"a\r\nb\",c\n", `a"b,c` + "\n1,2\n", `"a"b,c` + "\n1,2\n",
		`"abc`, "\"abc\n", "\"abc\ndef", "x\n\"", "\r\n\r\n", "a\t\tb\n", "  \n1,2\n", "\u00a0a,b\n", `"a",` + "\n",
		`"a" ,b`, "a,\"b\"\r\n\"c\"\r", "\"\"\n", "é,\"é\"\"é\"\n",
	}
	for _, comma := range []rune{',', ';', '\t', '|', '·'} {
		for _, text := range cases {
			text = strings.ReplaceAll(text, ",", string(comma))
			if got, want := scanRecords(text, comma), csvRecords(text, comma); !slices.Equal(got, want) {
				t.Errorf("delimiter %q, %q:\ngot  %v\nwant %v", comma, text, got, want)
			}
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	pieces := []string{"a", "bc", `"`, `""`, ",", ";", "\n", "\r\n", "\r", " ", "\t", "\u00a0", "é", "1.5"}
	for n := 0; n < 20000; n++ {
		var b strings.Builder
		for k := rng.IntN(24); k > 0; k-- {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		text := b.String()
		for _, comma := range []rune{',', ';'} {
			if got, want := scanRecords(text, comma), csvRecords(text, comma); !slices.Equal(got, want) {
				t.Fatalf("delimiter %q, %q:\ngot  %v\nwant %v", comma, text, got, want)
			}
		}
	}
}
