package ubb

import (
	"cmp"
	"fmt"
	"sort"
	"strings"
)

// Input is what Load reads: a UBBCONFIG, an optional DMCONFIG, and the
// scenario's advertise map.
type Input struct {
	UBBConfig string // the UBBCONFIG text
	UBBName   string // its file name in diagnostics ("UBBCONFIG" when empty)
	DMConfig  string // the DMCONFIG text, "" (or blank) for none
	DMName    string // its file name in diagnostics ("DMCONFIG" when empty)
	// Advertise maps a server name to the services it advertises when its
	// CLOPT has no -s (nil for none); diagnostics about it name "scenario".
	Advertise map[string][]string
}

// Load parses a UBBCONFIG (and the DMCONFIG, if any) and builds the Model
// that docs/config.md describes. A failed load returns an ErrorList of
// diagnostics positioned at FILE:LINE:COL.
//
// Syntax errors are reported first (and stop the build); then problems with
// values, in file order (the UBBCONFIG's before the DMCONFIG's); then missing
// required parameters. At most 100 are reported. Warnings of a successful
// load are in Model.Warnings.
func Load(in Input) (*Model, error) {
	ubbName, dmName := cmp.Or(in.UBBName, "UBBCONFIG"), cmp.Or(in.DMName, "DMCONFIG")
	b := &builder{file: ubbName, dmFile: dmName, cur: ubbName, advertise: in.Advertise}
	ubbSecs, diags := parseSyntax(ubbName, in.UBBConfig, "RESOURCES", isResourcesSection, noLooseKV)
	var dmSecs []*section
	if strings.TrimSpace(in.DMConfig) != "" {
		var dmDiags []Diagnostic
		dmSecs, dmDiags = parseSyntax(dmName, in.DMConfig, "", noLooseKV, isDMResourcesSection)
		diags = append(diags, dmDiags...)
	}
	if len(diags) > 0 {
		return nil, sourced(diags, dmName)
	}
	b.build(ubbSecs, dmSecs)
	if errs := b.errors(); len(errs) > 0 {
		return nil, sourced(errs, dmName)
	}
	b.m.Warnings = sourced(b.warns, dmName)
	if n := len(b.warns) - maxDiagnostics; n > 0 {
		b.m.Warnings = append(b.warns[:maxDiagnostics:maxDiagnostics], Diagnostic{File: ubbName, Severity: SeverityWarning,
			Message: fmt.Sprintf("%d more warnings not shown", n)})
	}
	return b.m, nil
}

// sourced says which input each diagnostic is about: the DMCONFIG (the
// file named dmName), the scenario (its advertise lists), else the
// UBBCONFIG.
func sourced(diags []Diagnostic, dmName string) ErrorList {
	for i := range diags {
		if diags[i].Source != "" {
			continue
		}
		switch diags[i].File {
		case dmName:
			diags[i].Source = SourceDMConfig
		case SourceScenario:
			diags[i].Source = SourceScenario
		default:
			diags[i].Source = SourceUBBConfig
		}
	}
	return diags
}

func isResourcesSection(name string) bool   { return name == "RESOURCES" }
func isDMResourcesSection(name string) bool { return name == "DM_RESOURCES" }
func noLooseKV(string) bool                 { return false }

// builder turns parsed sections into a Model, collecting diagnostics.
type builder struct {
	file, dmFile string
	cur          string // the file being built: diagnostics name it
	advertise    map[string][]string
	m            *Model

	errs  []Diagnostic // value problems, sorted into file order at the end
	late  []Diagnostic // missing required parameters, reported after errs
	warns []Diagnostic

	machineAt map[string]int // LMID -> index into m.Machines
	groupAt   map[string]int // group name -> index into m.Groups
	groupPos  map[string]pos // group name -> where its *GROUPS entry is
	svc       map[string]*Service
	svcOrder  []string // *SERVICES names in file order, for the advertise fallback
	entries   []serverEntry
	dm        *dmConfig
	critAt    map[string]int   // routing criterion name -> index into m.Routing
	routedAt  map[string]pos   // service -> where its ROUTING= was first named
	unrouted  map[string][]pos // service -> its entries without ROUTING= so far

	// resourceSteps counts the parameters reading *RESOURCES looks at, so
	// that a test can check it grows linearly with the section.
	resourceSteps int
}

func (b *builder) diag(list *[]Diagnostic, file string, at pos, sev, format string, args ...any) {
	*list = append(*list, Diagnostic{File: file, Line: int(at.line), Col: int(at.col), Severity: sev,
		Message: fmt.Sprintf(format, args...)})
}

// errorf records a problem with a value of the file being built.
func (b *builder) errorf(at pos, format string, args ...any) {
	b.diag(&b.errs, b.cur, at, "error", format, args...)
}

// missingf records a missing required parameter of the file being built.
func (b *builder) missingf(at pos, format string, args ...any) {
	b.diag(&b.late, b.cur, at, "error", format, args...)
}

// warnf records a warning about the file being built.
func (b *builder) warnf(at pos, format string, args ...any) {
	b.diag(&b.warns, b.cur, at, "warning", format, args...)
}

// errors returns every error: value problems in file order (the UBBCONFIG's
// before the DMCONFIG's), then missing parameters; duplicates removed.
func (b *builder) errors() []Diagnostic {
	sort.SliceStable(b.errs, func(i, j int) bool {
		x, y := b.errs[i], b.errs[j]
		if (x.File == b.file) != (y.File == b.file) {
			return x.File == b.file
		}
		if x.Line != y.Line {
			return x.Line < y.Line
		}
		return x.Col < y.Col
	})
	all := append(append([]Diagnostic(nil), b.errs...), b.late...)
	seen := map[Diagnostic]bool{}
	out := all[:0]
	for _, d := range all {
		if !seen[d] && len(out) < maxDiagnostics {
			seen[d] = true
			out = append(out, d)
		}
	}
	return out
}

// parseNumber reads a number the way Tuxedo writes them: decimal, octal with a
// leading 0 (0660) or hexadecimal with 0x. Only digits; no sign.
func parseNumber(s string) (int64, bool) {
	base := int64(10)
	digits := s
	switch {
	case len(s) > 2 && (s[:2] == "0x" || s[:2] == "0X"):
		base, digits = 16, s[2:]
	case len(s) > 1 && s[0] == '0':
		base, digits = 8, s[1:]
	}
	if digits == "" {
		return 0, false
	}
	var n int64
	for _, c := range digits {
		d := int64(99)
		switch {
		case c >= '0' && c <= '9':
			d = int64(c - '0')
		case c >= 'a' && c <= 'f':
			d = int64(c-'a') + 10
		case c >= 'A' && c <= 'F':
			d = int64(c-'A') + 10
		}
		if d >= base {
			return 0, false
		}
		n = n*base + d
		if n > 1<<40 {
			return 0, false
		}
	}
	return n, true
}

// intParam returns the value of key in e as a number in [lo, hi], or def when
// e has no such parameter. A bad value is reported and def returned.
func (b *builder) intParam(e *entry, key string, def, lo, hi int) int {
	p, ok := e.get(key)
	if !ok {
		return def
	}
	return b.intValue(p, lo, hi, def)
}

// intValue checks that p's value is a number in [lo, hi].
func (b *builder) intValue(p param, lo, hi, def int) int {
	n, ok := parseNumber(p.value)
	if !ok || n < int64(lo) || n > int64(hi) {
		b.errorf(p.valPos, "%s must be a number from %d to %d, got %q", p.key, lo, hi, p.value)
		return def
	}
	return int(n)
}

// firstOfList returns the first element of a comma list.
func firstOfList(s string) string {
	if i := strings.IndexByte(s, ','); i >= 0 {
		return s[:i]
	}
	return s
}

// splitList splits a comma list, dropping empty elements.
func splitList(s string) []string {
	var out []string
	for _, x := range strings.Split(s, ",") {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	return out
}

// lineOf formats "line N" for messages that point back at an earlier place.
func lineOf(p pos) string { return fmt.Sprintf("line %d", p.line) }
