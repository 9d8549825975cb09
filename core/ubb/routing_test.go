package ubb

import (
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestBankappRouting loads the documented bankapp layout, whose RANGES run
// over several lines, and checks every criterion, range and service.
func TestBankappRouting(t *testing.T) {
	text, err := os.ReadFile("testdata/routing/bankapp.ubb")
	if err != nil {
		t.Fatal(err)
	}
	m, err := Load(Input{UBBConfig: string(text), UBBName: "bankapp.ubb"})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Routing) != 2 {
		t.Fatalf("got %d criteria, want 2", len(m.Routing))
	}
	acc := m.Criterion("ACCOUNT_ID")
	type rg struct{ text, group string }
	var got []rg
	for _, r := range acc.Ranges {
		got = append(got, rg{r.Text, r.Group})
	}
	want := []rg{{"MIN - 9999", "*"}, {"10000-49999", "BANKB1"}, {"50000-79999", "BANKB2"}, {"80000-109999", "BANKB3"}, {"*", "*"}}
	if len(got) != len(want) {
		t.Fatalf("ranges: got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("range %d: got %v, want %v", i, got[i], want[i])
		}
	}
	if !acc.Ranges[4].CatchAll || acc.Ranges[3].CatchAll {
		t.Errorf("only the last range is the catch-all")
	}
	if acc.Kind != KindNumber || acc.Field != "ACCOUNT_ID" || acc.BufType != "FML" || acc.Line != 48 {
		t.Errorf("ACCOUNT_ID: got kind %q field %q buftype %q line %d", acc.Kind, acc.Field, acc.BufType, acc.Line)
	}
	if s := strings.Join(acc.Services, ","); s != "DEPOSIT,INQUIRY,WITHDRAW" {
		t.Errorf("ACCOUNT_ID services: got %s, want DEPOSIT,INQUIRY,WITHDRAW", s)
	}
	if s := strings.Join(m.Criterion("BRANCH_ID").Services, ","); s != "CLOSE_ACCT,OPEN_ACCT" {
		t.Errorf("BRANCH_ID services: got %s", s)
	}
	if m.Service("WITHDRAW").Routing != "ACCOUNT_ID" || m.Service("OPEN_ACCT").Routing != "BRANCH_ID" {
		t.Errorf("services' ROUTING not recorded")
	}
	for _, c := range []struct {
		value string
		want  int
	}{
		{"-5", 0}, {"9999", 0}, {"10000", 1}, {"49999", 1}, {"49999.5", 4}, {"50000", 2},
		{"109999", 3}, {"110000", 4}, {"0010000", 1}, {"+80000.000", 3}, {"abc", 4},
	} {
		if got := acc.Match(acc.ParseValue(c.value)); got != c.want {
			t.Errorf("ACCOUNT_ID %q: got range %d, want %d", c.value, got, c.want)
		}
	}
}

func TestRangesAccepted(t *testing.T) {
	for _, c := range []struct {
		name, ranges string
		kind         string
		values       map[string]int // value -> range index (-1: none)
	}{
		{"gaps", `"1-10:G1, 20-30:G2"`, KindNumber, map[string]int{"0": -1, "1": 0, "10": 0, "11": -1, "15": -1, "20": 1, "30": 1, "31": -1}},
		{"signed", `"-10--5:G1,-4-+4:G2,5:G1"`, KindNumber, map[string]int{"-11": -1, "-10": 0, "-5": 0, "-4.5": -1, "-4": 1, "0": 1, "4": 1, "5": 2, "5.0": 2, "5.01": -1}},
		{"decimals", `"0.5-1.25:G1"`, KindNumber, map[string]int{"0.49": -1, "0.5": 0, ".5": 0, "1.25": 0, "1.250": 0, "1.2501": -1}},
		{"overlap first wins", `"1-100:G1,50-60:G2,*:G2"`, KindNumber, map[string]int{"55": 0, "101": 2}},
		{"strings", `"'A'-'Mzz':G1,'N'-'Z':G2,'it''s':G1"`, "", nil},
		{"string ranges", `"'A'-'Mzz':G1,'N'-'Z':G2"`, KindString, map[string]int{"A": 0, "Apple": 0, "M": 0, "Mzz": 0, "Mzzz": -1, "N": 1, "Zoo": -1, "a": -1, "": -1}},
		{"string escapes", `"'it\'s':G1,'a\\b':G2"`, KindString, map[string]int{"it's": 0, `a\b`: 1, "its": -1}},
		{"MIN MAX", `"MIN-0:G1,100-MAX:G2"`, KindNumber, map[string]int{"-99999999999999999999": 0, "0": 0, "1": -1, "100": 1, "123456789012345678901234567890": 1}},
		{"MIN-MAX holds strings too", `"MIN-MAX:G1"`, "", map[string]int{"x": 0, "5": 0}},
		{"group star and catch-all", `"1-5:*, *:G2"`, KindNumber, map[string]int{"3": 0, "9": 1, "x": 1}},
		{"spaces", "\"  1 - 5 : G1 ,\n 6:G2 \"", KindNumber, map[string]int{"5": 0, "6": 1}},
	} {
		t.Run(c.name, func(t *testing.T) {
			text := head + "s SRVGRP=G1 SRVID=1 CLOPT=\"-s S\"\n*GROUPS\nG2 LMID=site1 GRPNO=2\n*SERVICES\nS ROUTING=R\n*ROUTING\nR FIELD=F RANGES=" + c.ranges + "\n"
			m, err := Load(Input{UBBConfig: text, UBBName: "t.ubb"})
			if c.name == "strings" {
				// '' is not an escape: 'it' then 's' is malformed.
				if err == nil {
					t.Fatalf("got a model, want an error")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			r := m.Criterion("R")
			if r.Kind != c.kind {
				t.Errorf("kind: got %q, want %q", r.Kind, c.kind)
			}
			for v, want := range c.values {
				if got := r.Match(r.ParseValue(v)); got != want {
					t.Errorf("value %q: got range %d, want %d", v, got, want)
				}
			}
		})
	}
}

func TestRoutingRejections(t *testing.T) {
	base := head + "s SRVGRP=G1 SRVID=1 CLOPT=\"-s S,T\"\n*SERVICES\nS ROUTING=R\n*ROUTING\n"
	for _, c := range []struct{ name, text, want string }{
		{"mixed", base + "R FIELD=F RANGES=\"1-5:G1,'a':G1\"\n",
			"t.ubb:12:26: routing criterion R: RANGES: 'a' mixes numbers and strings: the values before (from line 12 col 19) are numbers, this range has a string"},
		{"low above high", base + "R FIELD=F RANGES=\"1-5:G1,\n  9-7:G1\"\n",
			"t.ubb:13:3: routing criterion R: RANGES: 9-7: the low end is above the high end"},
		{"string low above high", base + "R FIELD=F RANGES=\"'b'-'a':G1\"\n",
			"t.ubb:12:19: routing criterion R: RANGES: 'b'-'a': the low end is above the high end"},
		{"MAX-5", base + "R FIELD=F RANGES=\"MAX-5:G1\"\n",
			"t.ubb:12:19: routing criterion R: RANGES: MAX-5: the low end is above the high end"},
		{"unknown group", base + "R FIELD=F RANGES=\"1-5:G1,\n 6-9:G9\"\n",
			"t.ubb:13:6: routing criterion R: RANGES: unknown group G9: expected a group of *GROUPS or *"},
		{"unknown criterion", head + "s SRVGRP=G1 SRVID=1\n*SERVICES\nS ROUTING=NOPE\n",
			"t.ubb:10:11: service S: unknown routing criterion NOPE: expected an entry of *ROUTING"},
		{"two criteria", head + "s SRVGRP=G1 SRVID=1\n*SERVICES\nS ROUTING=R\nS SRVGRP=G1 ROUTING=Q\n*ROUTING\nR FIELD=F RANGES=\"1:G1\"\nQ FIELD=F RANGES=\"1:G1\"\n",
			"t.ubb:11:21: service S: ROUTING=Q here, but ROUTING=R at line 10: every entry of a service must name the same criterion"},
		{"malformed value", base + "R FIELD=F RANGES=\"1-x5:G1\"\n",
			`t.ubb:12:21: routing criterion R: RANGES: malformed value "x5": expected a number, a 'string' (in single quotes), MIN or MAX`},
		{"missing colon", base + "R FIELD=F RANGES=\"1-5 G1\"\n",
			"t.ubb:12:23: routing criterion R: RANGES: expected ':' and a group after 1-5"},
		{"missing group", base + "R FIELD=F RANGES=\"1-5:\"\n",
			"t.ubb:12:23: routing criterion R: RANGES: expected a group after 1-5:"},
		{"trailing comma", base + "R FIELD=F RANGES=\"1-5:G1,\"\n",
			"t.ubb:12:26: routing criterion R: RANGES: expected a range after ','"},
		{"malformed after the catch-all", base + "R FIELD=F RANGES=\"*:G1,1-:G1\"\n",
			`t.ubb:12:26: routing criterion R: RANGES: malformed value ":": expected a number, a 'string' (in single quotes), MIN or MAX`},
		{"unclosed string", base + "R FIELD=F RANGES=\"'abc:G1\"\n",
			"t.ubb:12:19: routing criterion R: RANGES: a string opened here needs a closing single quote"},
		{"empty", base + "R FIELD=F RANGES=\" \"\n",
			"t.ubb:12:19: routing criterion R: RANGES: empty: expected range:group items such as 1-100:GROUP1, separated by commas"},
		{"missing FIELD", base + "R RANGES=\"1:G1\"\n",
			"t.ubb:12:1: routing criterion R: missing FIELD= (the request field whose value is routed)"},
		{"duplicate criterion", base + "R FIELD=F RANGES=\"1:G1\"\nR FIELD=F RANGES=\"1:G1\"\n",
			"t.ubb:13:1: duplicate routing criterion R (first at line 12): entries that share a name need BUFTYPE= to tell them apart"},
		{"shared name, the first without BUFTYPE", base + "R FIELD=F RANGES=\"1:G1\"\nR FIELD=F BUFTYPE=FML RANGES=\"1:G1\"\n",
			"t.ubb:13:1: duplicate routing criterion R: the entry at line 12 has no BUFTYPE=, and entries that share a name need one each to tell them apart"},
		{"shared name, a pair in both", base + "R FIELD=F BUFTYPE=\"FML;VIEW:a\" RANGES=\"1:G1\"\nR FIELD=F BUFTYPE=\"FML32;VIEW:b,a\" RANGES=\"1:G1\"\n",
			"t.ubb:13:19: routing criterion R: BUFTYPE VIEW:a is also in the entry at line 12: a buffer type picks one entry only"},
		{"unterminated RANGES", base + "R FIELD=F RANGES=\"1:G1,\n2:G1\n",
			"t.ubb:12:18: unterminated quoted string: expected a closing '\"' (a quoted value may run over 1000 lines at most)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := firstError(t, c.text); got != c.want {
				t.Errorf("got  %s\nwant %s", got, c.want)
			}
		})
	}
}

func TestRoutingWarnings(t *testing.T) {
	text := head + "s SRVGRP=G1 SRVID=1 CLOPT=\"-s S\"\n*GROUPS\nG2 LMID=site1 GRPNO=2\n" +
		"*SERVICES\nS ROUTING=R\nS SRVGRP=G1\n*ROUTING\nR FIELD=F RANGES=\"1:G1,2:G2,*:*\"\nU FIELD=F RANGES=\"1:G1\"\n"
	m, err := Load(Input{UBBConfig: text, UBBName: "t.ubb"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, w := range m.Warnings {
		got = append(got, w.String())
	}
	want := []string{
		"t.ubb:9:1: warning: section *GROUPS again (first at line 5): its entries are added",
		"t.ubb:13:1: warning: service S: this entry names no ROUTING; the service is routed by R (line 12) everywhere",
		"t.ubb:15:1: warning: routing criterion R: range 2:G2 sends S to group G2, where no running server advertises it",
		"t.ubb:16:1: warning: routing criterion U: no service uses it (name it with ROUTING=U in *SERVICES)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestRoutingFactoryCriterion: a TYPE=FACTORY criterion is a CORBA
// interface's factory-based routing (FACTORYROUTING in *INTERFACES), which
// no *SERVICES entry names: it gets no "no service uses it" warning, and
// nothing else about it. A criterion that says TYPE=SERVICE (the default)
// and that no service uses still gets the warning, as one without TYPE.
// Lines (head is 7): 8 the server, 10 S ROUTING=ACC, 12-13 the *INTERFACES
// entry, 15 STU (FACTORY), 16 ACC (SERVICE, used by S), 17 OLD (SERVICE,
// unused), 18 NOTYPE (unused).
func TestRoutingFactoryCriterion(t *testing.T) {
	text := head + "s SRVGRP=G1 SRVID=1 CLOPT=\"-s S\"\n" +
		"*SERVICES\nS ROUTING=ACC\n" +
		"*INTERFACES\n\"IDL:beasys.com/UniversityP/Registrar:1.0\"\n    FACTORYROUTING = STU\n" +
		"*ROUTING\n" +
		"STU FIELD=\"student_id\" TYPE=FACTORY FIELDTYPE=LONG RANGES=\"1-5:G1,*:G1\"\n" +
		"ACC FIELD=F TYPE=SERVICE RANGES=\"*:G1\"\n" +
		"OLD FIELD=F TYPE=SERVICE RANGES=\"*:G1\"\n" +
		"NOTYPE FIELD=F RANGES=\"*:G1\"\n"
	m := mustLoad(t, text)
	var got []string
	for _, w := range m.Warnings {
		got = append(got, w.String())
	}
	want := []string{
		"t.ubb:17:1: warning: routing criterion OLD: no service uses it (name it with ROUTING=OLD in *SERVICES)",
		"t.ubb:18:1: warning: routing criterion NOTYPE: no service uses it (name it with ROUTING=NOTYPE in *SERVICES)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(m.Routing) != 4 || m.Routing[0].Name != "STU" || len(m.Routing[0].Services) != 0 {
		t.Errorf("routing %+v: want STU first, routing no service", m.Routing)
	}
}

// TestRangesAfterCatchAll: ranges written after the catch-all are read and
// checked (syntax, bounds, groups), then dropped with a warning naming them;
// they take no part in the criterion's kind.
func TestRangesAfterCatchAll(t *testing.T) {
	text := head + "s SRVGRP=G1 SRVID=1 CLOPT=\"-s S,T\"\n*GROUPS\nG2 LMID=site1 GRPNO=2\n" +
		"*SERVICES\nS ROUTING=R\nT ROUTING=Q\n*ROUTING\nR FIELD=F RANGES=\"1-5:G1, *:G1,\n  'a':G2, *:G2\"\n" +
		"Q FIELD=F RANGES=\"*:G1,7:G1\"\n"
	m, err := Load(Input{UBBConfig: text, UBBName: "t.ubb"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, w := range m.Warnings {
		got = append(got, w.String())
	}
	want := []string{
		"t.ubb:9:1: warning: section *GROUPS again (first at line 5): its entries are added",
		"t.ubb:16:3: warning: routing criterion R: RANGES: 'a':G2, *:G2 after the catch-all * are ignored: the catch-all already holds every value that no range before it holds",
		"t.ubb:17:24: warning: routing criterion Q: RANGES: 7:G1 after the catch-all * is ignored: the catch-all already holds every value that no range before it holds",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	r := m.Criterion("R")
	if len(r.Ranges) != 2 || !r.Ranges[1].CatchAll || r.Kind != KindNumber {
		t.Errorf("R: got ranges %+v kind %q, want 1-5 and the catch-all, numbers", r.Ranges, r.Kind)
	}
	for v, want := range map[string]int{"3": 0, "a": 1, "9": 1} {
		if got := r.Match(r.ParseValue(v)); got != want {
			t.Errorf("R %q: got range %d, want %d", v, got, want)
		}
	}
	if q := m.Criterion("Q"); len(q.Ranges) != 1 || q.Kind != "" {
		t.Errorf("Q: got ranges %+v kind %q, want only the catch-all and no kind", q.Ranges, q.Kind)
	}
}

// TestSharedNames: entries of one name told apart by BUFTYPE are all kept,
// in file order, each listing the services; the request's buffer type picks
// one (the first when none is given).
func TestSharedNames(t *testing.T) {
	text := head + "s SRVGRP=G1 SRVID=1 CLOPT=\"-s S\"\n*GROUPS\nG2 LMID=site1 GRPNO=2\n" +
		"*SERVICES\nS ROUTING=ACCT\n*ROUTING\n" +
		"ACCT FIELD=ACCOUNT_ID BUFTYPE=\"FML\" RANGES=\"1-5:G1,*:G2\"\n" +
		"OTHER FIELD=X BUFTYPE=FML RANGES=\"*:G1\"\n" +
		"ACCT FIELD=acct BUFTYPE=\"VIEW:acct, acct2 ; FML32\" RANGES=\"'A'-'M':G2,*:G1\"\n"
	m, err := Load(Input{UBBConfig: text, UBBName: "t.ubb"})
	if err != nil {
		t.Fatal(err)
	}
	es := m.RoutingEntries("ACCT")
	if len(es) != 2 || es[0].Line != 14 || es[1].Line != 16 || m.Criterion("ACCT") != es[0] {
		t.Fatalf("entries: got %d (%+v), want lines 14 and 16, the first as Criterion", len(es), es)
	}
	if es[0].Kind != KindNumber || es[1].Kind != KindString || es[1].BufType != "VIEW:acct, acct2 ; FML32" {
		t.Errorf("kinds %q %q, buftype %q", es[0].Kind, es[1].Kind, es[1].BufType)
	}
	for _, e := range es {
		if strings.Join(e.Services, ",") != "S" {
			t.Errorf("line %d: services %v, want S", e.Line, e.Services)
		}
	}
	for bt, want := range map[string]int{"": 0, "FML": 0, "FML32": 1, "VIEW:acct": 1, "VIEW:acct2": 1, "VIEW": -1, "VIEW:x": -1, "XML": -1, "fml": -1} {
		if got := PickEntry(es, bt); got != want {
			t.Errorf("PickEntry(%q): got %d, want %d", bt, got, want)
		}
	}
	for _, w := range m.Warnings {
		if strings.Contains(w.Message, "ACCT: no service uses") {
			t.Errorf("unexpected warning %s", w)
		}
	}
	if got, want := m.BufTypes("ACCT"), "FML (line 14), VIEW:acct, acct2 ; FML32 (line 16)"; got != want {
		t.Errorf("BufTypes: got %q, want %q", got, want)
	}
	// an entry without BUFTYPE holds every buffer type
	one := mustLoad(t, head+"s SRVGRP=G1 SRVID=1 CLOPT=\"-s S\"\n*SERVICES\nS ROUTING=R\n*ROUTING\nR FIELD=F RANGES=\"*:G1\"\n")
	if got := PickEntry(one.RoutingEntries("R"), "VIEW:anything"); got != 0 {
		t.Errorf("an entry without BUFTYPE: got %d, want 0", got)
	}
	if got := one.BufTypes("R"); got != "(any) (line 12)" {
		t.Errorf("BufTypes of an entry without BUFTYPE: got %q, want \"(any) (line 12)\"", got)
	}
}

func TestCheckBufType(t *testing.T) {
	for bt, bad := range map[string]bool{"FML": false, "VIEW:acct": false, "X_C_TYPE:v1": false, "anything": false,
		"": true, "FML;VIEW:a": true, "VIEW:a,b": true, "VIEW:*": true, "VIEW:": true, ":a": true, "a:b:c": true, "FML 32": true} {
		if got := CheckBufType(bt) != ""; got != bad {
			t.Errorf("CheckBufType(%q) = %q, want bad %v", bt, CheckBufType(bt), bad)
		}
	}
}

// TestMultiLineQuotes checks that a quoted value may span lines, holding
// the newlines, and that what follows it keeps its real position.
func TestMultiLineQuotes(t *testing.T) {
	text := head + "s SRVGRP=G1 SRVID=1 CLOPT=\"-s A,\n   B\" MIN=x\n"
	want := `t.ubb:9:11: MIN must be a number from 0 to 1000, got "x"`
	if got := firstError(t, text); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	m, err := Load(Input{UBBConfig: head + "s SRVGRP=G1 SRVID=1 CLOPT=\"-s A,\n   B\" MIN=2\n", UBBName: "t.ubb"})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Servers) != 2 || strings.Join(m.Servers[0].Services, ",") != "A" {
		t.Errorf("got %d servers advertising %v", len(m.Servers), m.Servers[0].Services)
	}
}

// FuzzRanges feeds arbitrary RANGES values to the reader: it must never
// panic, and an accepted criterion must match its own bounds consistently.
func FuzzRanges(f *testing.F) {
	for _, s := range []string{"1-5:G1", "MIN - 9999:*,\n10000-49999:G1,*:*", "'a'-'m':G1,'n'-'z':G2", "-1--0.5:G1",
		"1-5:G1,'a':G1", "*:G1,1:G1", "'it\\'s':G1", "1-:G1", ":", "", "1-5:G9"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, ranges string) {
		text := head + "s SRVGRP=G1 SRVID=1 CLOPT=\"-s S\"\n*SERVICES\nS ROUTING=R\n*ROUTING\nR FIELD=F RANGES=\"" +
			strings.NewReplacer(`"`, `\"`, `\`, `\\`).Replace(ranges) + "\"\n"
		m, err := Load(Input{UBBConfig: text, UBBName: "t.ubb"})
		if err != nil {
			return
		}
		c := m.Criterion("R")
		if c == nil {
			return
		}
		for i, r := range c.Ranges {
			if r.CatchAll && i != len(c.Ranges)-1 {
				t.Fatalf("catch-all at %d of %d", i, len(c.Ranges))
			}
			if cmpBound(r.lo, r.hi) > 0 {
				t.Fatalf("range %q: low above high", r.Text)
			}
		}
		_ = c.Match(c.ParseValue(ranges))
	})
}

func TestParseDecimal(t *testing.T) {
	for _, c := range []struct {
		in   string
		want decimal
		ok   bool
	}{
		{"10000", decimal{ip: "10000"}, true}, {"0010000.00", decimal{ip: "10000"}, true}, {"-0", decimal{}, true},
		{"+5", decimal{ip: "5"}, true}, {"5.", decimal{ip: "5"}, true}, {".5", decimal{fp: "5"}, true},
		{"-2.50", decimal{neg: true, ip: "2", fp: "5"}, true}, {"1e3", decimal{ip: "1000"}, true},
		{"1.25E+2", decimal{ip: "125"}, true}, {"125e-4", decimal{fp: "0125"}, true}, {"-1.5e-1", decimal{neg: true, fp: "15"}, true},
		{"", decimal{}, false}, {".", decimal{}, false}, {"1e", decimal{}, false}, {"1e5000", decimal{}, false},
		{"abc", decimal{}, false}, {"1-2", decimal{}, false}, {"--1", decimal{}, false}, {"0x10", decimal{}, false},
	} {
		got, ok := parseDecimal(c.in)
		if ok != c.ok || ok && got != c.want {
			t.Errorf("parseDecimal(%q): got %+v %v, want %+v %v", c.in, got, ok, c.want, c.ok)
		}
	}
	if cmpDecimal(mustDec("-10"), mustDec("-9.99")) >= 0 || cmpDecimal(mustDec("0.09"), mustDec("0.1")) >= 0 ||
		cmpDecimal(mustDec("100"), mustDec("99.999")) <= 0 || cmpDecimal(mustDec("1e2"), mustDec("100.0")) != 0 {
		t.Errorf("cmpDecimal orders wrongly")
	}
}

func mustDec(s string) decimal {
	d, ok := parseDecimal(s)
	if !ok {
		panic(s)
	}
	return d
}

// A BUFTYPE the reader cannot use is a warning naming it, and the criterion
// holds every buffer type (real configurations carry forms it does not know).
func TestBufTypeWarnings(t *testing.T) {
	base := head + "s SRVGRP=G1 SRVID=1 CLOPT=\"-s S,T\"\n*SERVICES\nS ROUTING=R\n*ROUTING\n"
	for _, c := range []struct{ name, text, want string }{
		{"BUFTYPE empty", base + "R FIELD=F BUFTYPE=\" \" RANGES=\"1:G1\"\n",
			"t.ubb:12:20: warning: routing criterion R: BUFTYPE: empty: expected type[:subtype[,subtype]] items separated by ';', such as FML or VIEW:acct; the criterion is taken to hold every buffer type"},
		{"BUFTYPE unknown type", base + "R FIELD=F BUFTYPE=\"FML; STRING\" RANGES=\"1:G1\"\n",
			"t.ubb:12:25: warning: routing criterion R: BUFTYPE: buffer type STRING cannot be routed: expected FML, FML32, VIEW, VIEW32, X_C_TYPE, X_COMMON or XML; the criterion is taken to hold every buffer type"},
		{"BUFTYPE lower case", base + "R FIELD=F BUFTYPE=fml RANGES=\"1:G1\"\n",
			"t.ubb:12:19: warning: routing criterion R: BUFTYPE: buffer type fml cannot be routed: expected FML, FML32, VIEW, VIEW32, X_C_TYPE, X_COMMON or XML; the criterion is taken to hold every buffer type"},
		{"BUFTYPE view without subtype", base + "R FIELD=F BUFTYPE=\"FML;VIEW\" RANGES=\"1:G1\"\n",
			"t.ubb:12:24: warning: routing criterion R: BUFTYPE: VIEW needs a subtype (VIEW:name; * is not allowed); the criterion is taken to hold every buffer type"},
		{"BUFTYPE FML with a subtype", base + "R FIELD=F BUFTYPE=\"FML32:x\" RANGES=\"1:G1\"\n",
			"t.ubb:12:20: warning: routing criterion R: BUFTYPE: FML32 takes no subtype, got FML32:x; the criterion is taken to hold every buffer type"},
		{"BUFTYPE wildcard subtype", base + "R FIELD=F BUFTYPE=\"VIEW:a,*\" RANGES=\"1:G1\"\n",
			"t.ubb:12:27: warning: routing criterion R: BUFTYPE: VIEW:*: the wildcard * is not allowed here: name each subtype; the criterion is taken to hold every buffer type"},
		{"BUFTYPE empty subtype", base + "R FIELD=F BUFTYPE=\"VIEW:a,,b\" RANGES=\"1:G1\"\n",
			"t.ubb:12:27: warning: routing criterion R: BUFTYPE: VIEW: expected a subtype name; the criterion is taken to hold every buffer type"},
		{"BUFTYPE empty item", base + "R FIELD=F BUFTYPE=\"FML;;XML\" RANGES=\"1:G1\"\n",
			"t.ubb:12:24: warning: routing criterion R: BUFTYPE: expected a buffer type (FML, FML32, VIEW, VIEW32, X_C_TYPE, X_COMMON or XML) in each ';'-separated item; the criterion is taken to hold every buffer type"},
		{"BUFTYPE twice in one entry", base + "R FIELD=F BUFTYPE=\"VIEW:a,b;VIEW:b\" RANGES=\"1:G1\"\n",
			"t.ubb:12:29: warning: routing criterion R: BUFTYPE: VIEW:b is listed twice; the criterion is taken to hold every buffer type"},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, err := Load(Input{UBBConfig: c.text, UBBName: "t.ubb"})
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			var got []string
			for _, w := range m.Warnings {
				got = append(got, w.String())
			}
			if !slices.Contains(got, c.want) {
				t.Errorf("warnings %q\nwant %s", got, c.want)
			}
		})
	}
}

// TestMatchFloatAsText: MatchFloat, where it answers, answers as Match does
// for the number's shortest text, for bounds that are float64s' shortest
// texts and bounds that are not (more digits than a float64 keeps, beyond
// its range), and for numbers at, next to and between the bounds; it
// answers for every number of a criterion of short bounds.
func TestMatchFloatAsText(t *testing.T) {
	crits := []string{
		`"MIN - 9999:*, 10000-49999:G1, 50000-79999:G2, 80000-109999:G3, *:*"`,
		`"-2.5 - -0.5:G1, 0-0.1:G2, 0.30000000000000004-1e3:G3, 1001-MAX:G1"`,
		`"0.1000000000000000055511151231257827021181583404541015625-0.2:G1, 7-9007199254740993:G2"`,
		`"0.000000000000000000000000000000000000000000000000001-1:G1, 123456789012345678901234567890-1e400:G2"`,
	}
	var xs []float64
	for _, v := range []float64{0, 0.1, 0.2, 0.3, 0.30000000000000004, 1, 2.5, 9999, 10000, 49999, 49999.5, 50000,
		109999, 110000, 1000, 1001, 7, 9007199254740992, 9007199254740994, 1e-300, 1.2345678901234568e29, 1e300} {
		for _, s := range []float64{1, -1} {
			xs = append(xs, s*v, math.Nextafter(s*v, math.Inf(1)), math.Nextafter(s*v, math.Inf(-1)))
		}
	}
	xs = append(xs, math.Copysign(0, -1))
	for k, ranges := range crits {
		ubb := "*RESOURCES\nIPCKEY 1\nMASTER S\nMODEL SHM\n*MACHINES\nm LMID=S\n*GROUPS\nG1 LMID=S GRPNO=1\nG2 LMID=S GRPNO=2\nG3 LMID=S GRPNO=3\n" +
			"*SERVERS\ns SRVGRP=G1 SRVID=1\n*SERVICES\nX ROUTING=C\n*ROUTING\nC FIELD=F RANGES=" + ranges + "\n"
		m, err := Load(Input{UBBConfig: ubb, UBBName: "c.ubb"})
		if err != nil {
			t.Fatalf("criterion %d: %v", k, err)
		}
		c := m.Criterion("C")
		answered := 0
		for _, x := range xs {
			got, ok := c.MatchFloat(x)
			text := strconv.FormatFloat(x, 'f', -1, 64)
			v, _ := NumberValue(text)
			if want := c.Match(v); ok && got != want {
				t.Errorf("criterion %d, %s: MatchFloat %d, Match of the text %d", k, text, got, want)
			}
			if ok {
				answered++
			}
		}
		if k < 2 && answered != len(xs) {
			t.Errorf("criterion %d, every bound a float64's shortest text: answered %d of %d", k, answered, len(xs))
		}
		if k >= 2 && answered == len(xs) {
			t.Errorf("criterion %d, bounds only their texts can compare: answered every number", k)
		}
	}
}
