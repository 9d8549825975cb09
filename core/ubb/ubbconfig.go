package ubb

import (
	"bytes"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// This file reads the UBBCONFIG syntax (shared by DMCONFIG) into sections,
// entries and parameters that remember where they were written. It knows
// nothing of what the keywords mean; build.go and dmconfig.go do.

// pos is a 1-based line and column (in characters; a tab counts as one).
// int32 keeps tokens and parameters small; a text has fewer than 2^31 lines.
type pos struct{ line, col int32 }

// span is a range of bytes [off, end) of the text as given (byte order mark
// included): where a token was written, for the editor.
type span struct{ off, end int32 }

// param is one KEY=value (or, in *RESOURCES, KEYWORD value).
type param struct {
	key     string
	keyPos  pos
	value   string
	valPos  pos
	valSpan span   // the value token as written, quotes included
	raw     string // a quoted value as written, quotes included ("" when unquoted)
}

// entry is one entry of a section: a name followed by parameters, possibly on
// continuation lines. A DEFAULT: line is an entry with isDefault set.
type entry struct {
	name      string
	pos       pos
	isDefault bool
	params    []param
	defaults  *defaultsLog // set by withDefaults
	nDefaults int          // how much of defaults applies: the DEFAULT: params before this entry
	end       int32        // the byte just after its last token (continuation lines included)
}

// section is one *NAME section with its entries in file order.
type section struct {
	name    string // without the leading '*'
	pos     pos
	entries []*entry
	body    int // the byte where the line after the header starts (len(text) if none)
}

// token kinds of the lexer.
const (
	tokWord   = iota // an unquoted run of characters
	tokString        // a double-quoted string, escapes resolved
	tokEquals        // '='
)

type token struct {
	kind int
	text string
	pos  pos
	span span
	raw  string // a quoted string as written, quotes included
}

// syntaxParser turns the text of one file into sections. Errors are collected
// in diags; parsing goes on at the next line after an error.
type syntaxParser struct {
	file      string
	diags     []Diagnostic
	sections  []*section
	cur       *section
	last      *entry // the entry continuation lines attach to
	kvSection func(name string) bool
	looseKV   func(name string) bool
	first     string // the section that must come first, or ""
	lineOff   int    // the byte where the line being read starts
	lineEnd   int    // the byte where the next line starts
}

func (p *syntaxParser) errorf(at pos, format string, args ...any) {
	p.diags = append(p.diags, Diagnostic{File: p.file, Line: int(at.line), Col: int(at.col),
		Severity: "error", Message: fmt.Sprintf(format, args...)})
}

// lexLine splits one line (without its newline) into tokens, dropping the
// comment. A double quote left open at the end of the line continues on the
// next: it returns open=true and parseSyntax calls it again with the next
// line joined (after a newline), so the quoted value holds the newline.
func (p *syntaxParser) lexLine(line string, lineNo int32) (toks []token, open bool) {
	col := int32(1)
	i := 0
	for i < len(line) {
		r, size := utf8.DecodeRuneInString(line[i:])
		switch {
		case r == ' ' || r == '\t' || r == '\r' || r == '\f' || r == '\v' || r == '\n':
			i += size
			col++
		case r == '#':
			return toks, false
		case r == '=':
			toks = append(toks, token{kind: tokEquals, text: "=", pos: pos{lineNo, col}, span: p.span(i, i+size)})
			i += size
			col++
		case r == '"':
			start := pos{lineNo, col}
			text, n, ok := lexQuoted(line[i:])
			if !ok {
				return nil, true
			}
			raw := line[i : i+n]
			toks = append(toks, token{kind: tokString, text: text, pos: start, span: p.span(i, i+n), raw: raw})
			i += n
			if nl := strings.Count(raw, "\n"); nl > 0 {
				lineNo += int32(nl)
				col = int32(utf8.RuneCountInString(raw[strings.LastIndexByte(raw, '\n')+1:])) + 1
			} else {
				col += int32(utf8.RuneCountInString(raw))
			}
		default:
			start := pos{lineNo, col}
			j := i
			for j < len(line) {
				r, size := utf8.DecodeRuneInString(line[j:])
				if strings.ContainsRune(" \t\r\f\v\n#=\"", r) {
					break
				}
				if n := placeholderLen(line[j:]); n > 0 {
					// a skeleton's <bracketed item>, blanks and all, is one word
					col += int32(utf8.RuneCountInString(line[j : j+n]))
					j += n
					continue
				}
				j += size
				col++
			}
			toks = append(toks, token{kind: tokWord, text: line[i:j], pos: start, span: p.span(i, j)})
			i = j
		}
	}
	return toks, false
}

// placeholderLen is the length in bytes of the <bracketed item> s starts
// with (Oracle's skeleton files write `IPCKEY <Replace with a valid IPC
// Key>` and `<SITE1's uname> LMID=SITE1`, to be replaced by hand), or 0:
// a '<', then up to the first '>' on the line, with no quote, '#' or '='
// between. Such an item is read as one word, blanks included.
func placeholderLen(s string) int {
	if !strings.HasPrefix(s, "<") {
		return 0
	}
	end := strings.IndexAny(s[1:], ">\"#=\n")
	if end < 0 || s[1+end] != '>' {
		return 0
	}
	return end + 2
}

// isPlaceholder says whether an unquoted word holds a skeleton's
// <bracketed item> with a blank in it (`<Replace with a valid IPC Key>`):
// the file is a skeleton that was not filled in. One without a blank
// (`<Machine-name>`) was always read as a plain word, and still is,
// without a word.
func isPlaceholder(word string) bool {
	for i := strings.IndexByte(word, '<'); i >= 0; {
		n := placeholderLen(word[i:])
		if n > 0 && strings.ContainsAny(word[i:i+n], " \t") {
			return true
		}
		j := strings.IndexByte(word[i+1:], '<')
		if j < 0 {
			return false
		}
		i += 1 + j
	}
	return false
}

// span returns the bytes [i, j) of the line being read as a span of the text.
func (p *syntaxParser) span(i, j int) span { return span{int32(p.lineOff + i), int32(p.lineOff + j)} }

// lexQuoted reads a double-quoted string at the start of s. Backslash escapes
// \" and \\ stand for the character; any other backslash is kept as written.
// It returns the text, the bytes consumed, and false when the closing quote
// is missing.
func lexQuoted(s string) (string, int, bool) {
	var b strings.Builder
	i := 1
	for i < len(s) {
		switch {
		case s[i] == '"':
			return b.String(), i + 1, true
		case s[i] == '\\' && i+1 < len(s) && (s[i+1] == '"' || s[i+1] == '\\'):
			b.WriteByte(s[i+1])
			i += 2
			continue
		default:
			b.WriteByte(s[i])
		}
		i++
	}
	return "", 0, false
}

// parseSyntax reads a whole file. kvSection reports the sections whose lines
// are "KEYWORD value" (*RESOURCES); looseKV the sections whose parameters need
// no entry name (*DM_RESOURCES).
// first, when not "", is the section the file must start with.
func parseSyntax(file, text, first string, kvSection, looseKV func(string) bool) ([]*section, []Diagnostic) {
	p := &syntaxParser{file: file, kvSection: kvSection, looseKV: looseKV, first: first}
	rest := strings.TrimPrefix(text, "\uFEFF")
	p.lineEnd = len(text) - len(rest)
	lineNo := int32(0)
	next := func() string {
		lineNo++
		line := rest
		if i := strings.IndexByte(rest, '\n'); i >= 0 {
			line, rest = rest[:i], rest[i+1:]
		} else {
			rest = ""
		}
		p.lineEnd = len(text) - len(rest)
		return line
	}
	for len(rest) > 0 {
		p.lineOff = p.lineEnd
		line := next()
		start := lineNo
		toks, open := p.lexLine(line, start)
		broken := false
		for open && len(rest) > 0 && lineNo-start < maxQuotedLines {
			if what := startsEntry(rest); what != "" {
				// a value may run on over lines, but not into the next
				// entry: the quote was left open, and reading on would
				// report it lines later, where the next quote closes it
				at := openQuote(line, start)
				p.errorf(at, "the quote opened at %d:%d is never closed before line %d, which starts %s: close it on line %d",
					at.line, at.col, lineNo+1, what, at.line)
				broken = true
				break
			}
			line += "\n" + next() // the joined line is the text as given, so spans hold
			toks, open = p.lexLine(line, start)
		}
		if broken {
			continue
		}
		if open {
			at := openQuote(line, start)
			p.errorf(at, "unterminated quoted string: expected a closing '\"' (a quoted value may run over %d lines at most)", maxQuotedLines)
			continue
		}
		if p.notUTF8(toks) {
			continue
		}
		toks = p.strayBytes(toks)
		p.parseLine(toks)
		if len(p.diags) >= maxDiagnostics {
			break
		}
	}
	if first != "" && len(p.sections) == 0 && len(p.diags) == 0 {
		p.errorf(pos{1, 1}, "no sections: expected *%s", first)
	}
	return p.sections, p.diags
}

// startsEntry says what the first line of text starts, when it starts in
// its first column a section (*GROUPS), a DEFAULT: line or an entry with a
// parameter (srv2 SRVGRP=...): "the section *GROUPS", "the entry srv2";
// "" otherwise. A quoted value's own continuation lines do not (they are
// indented, or hold no NAME KEY=).
func startsEntry(text string) string {
	line, _, _ := strings.Cut(text, "\n")
	line = strings.TrimRight(line, "\r")
	if line == "" || line[0] == ' ' || line[0] == '\t' || line[0] == '"' || line[0] == '#' {
		return ""
	}
	if line[0] == '*' {
		name := strings.Fields(line)[0]
		if len(name) > 1 && isKeyword(name[1:]) {
			return "the section " + name
		}
		return ""
	}
	f := strings.Fields(line)
	if len(f) == 0 {
		return "" // blanks other than spaces and tabs (a form feed, a vertical tab)
	}
	if f[0] == "DEFAULT:" {
		return "a DEFAULT: line"
	}
	if len(f) < 2 || strings.ContainsAny(f[0], "=\"") {
		return ""
	}
	key, _, ok := strings.Cut(f[1], "=")
	if !ok || !isKeyword(key) {
		return ""
	}
	return "the entry " + f[0]
}

// isKeyword reports whether s is written as a keyword: letters, digits and
// underscores, starting with a letter.
func isKeyword(s string) bool {
	for i, r := range s {
		if !(r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r == '_' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return s != ""
}

// maxDiagnostics bounds how many problems one file reports.
const maxDiagnostics = 100

// maxQuotedLines bounds how many lines one quoted value may span, so that a
// quote left open does not swallow the rest of the file unnoticed.
const maxQuotedLines = 1000

// openQuote returns the position of the double quote that text (lines joined
// from line start on) leaves open.
func openQuote(text string, start int32) pos {
	at, line, col := pos{start, 1}, start, int32(1)
	inQuote := false
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		switch {
		case r == '\n':
			line, col = line+1, 0
		case inQuote && r == '\\' && i+1 < len(text) && (text[i+1] == '"' || text[i+1] == '\\'):
			i += 2
			col += 2
			continue
		case r == '#' && !inQuote:
			// a comment runs to the end of its line
			j := strings.IndexByte(text[i:], '\n')
			if j < 0 {
				return at
			}
			i += j
			continue
		case r == '"':
			if !inQuote {
				at = pos{line, col}
			}
			inQuote = !inQuote
		}
		i += size
		col++
	}
	return at
}

// notUTF8 reports the first token of a line that is not valid UTF-8 (a
// file saved in another encoding): its bytes would reach names and
// messages as they are. Comments may hold anything.
func (p *syntaxParser) notUTF8(toks []token) bool {
	for _, t := range toks {
		if !utf8.ValidString(t.text) {
			p.errorf(t.pos, "%s is not valid UTF-8: save the file as UTF-8", describe(t))
			return true
		}
	}
	return false
}

// strayBytes reports a control character (a byte below 0x20 but for the
// blanks, or 0x7f) written in an unquoted word, at its position and as its
// byte value: printed as it is, it would not show. The line is then read
// without those bytes, so that the rest of it reports only its own
// problems.
func (p *syntaxParser) strayBytes(toks []token) []token {
	out := toks[:0]
	for _, t := range toks {
		i := strings.IndexFunc(t.text, isControl)
		if t.kind != tokWord || i < 0 {
			out = append(out, t)
			continue
		}
		at := pos{t.pos.line, t.pos.col + int32(utf8.RuneCountInString(t.text[:i]))}
		clean := strings.Map(func(r rune) rune {
			if isControl(r) {
				return -1
			}
			return r
		}, t.text)
		switch {
		case i > 0:
			p.errorf(at, "unexpected byte 0x%02x after %q: a control character, not text: remove it", t.text[i], t.text[:i])
		case clean != "":
			p.errorf(at, "unexpected byte 0x%02x before %q: a control character, not text: remove it", t.text[i], clean)
		default:
			p.errorf(at, "unexpected byte 0x%02x: a control character, not text: remove it", t.text[i])
		}
		if clean != "" {
			t.text = clean
			out = append(out, t)
		}
	}
	return out
}

// isControl says whether r is an ASCII control character; the lexer has
// taken the blanks (tab, CR, form feed, vertical tab) as separators.
func isControl(r rune) bool { return r < 0x20 || r == 0x7f }

// visible is s as it is when every character of it prints, else quoted
// with escapes (a no-break space, a zero-width space), so that a name that
// differs from the expected one by an invisible character shows it.
func visible(s string) string {
	if strings.IndexFunc(s, func(r rune) bool { return !strconv.IsPrint(r) }) < 0 {
		return s
	}
	return strconv.QuoteToASCII(s)
}

func (p *syntaxParser) parseLine(toks []token) {
	if len(toks) == 0 {
		return
	}
	first := toks[0]
	if first.kind == tokWord && strings.HasPrefix(first.text, "*") {
		// Anything after the section name on its line is a comment.
		if p.first != "" && len(p.sections) == 0 && first.text[1:] != p.first {
			p.errorf(first.pos, "the first section must be *%s, found %s", p.first, visible(first.text))
		}
		p.cur = &section{name: first.text[1:], pos: first.pos, body: p.lineEnd}
		p.sections = append(p.sections, p.cur)
		p.last = nil
		return
	}
	if p.cur == nil {
		want := "*" + p.first
		if p.first == "" {
			want = "a section such as *DM_LOCAL_DOMAINS"
		}
		p.errorf(first.pos, "expected %s before %s", want, describe(first))
		p.cur = &section{pos: first.pos} // report this once: skip to the next section
		return
	}
	if p.cur.name == "" {
		return
	}
	if p.kvSection(p.cur.name) {
		p.parseKeywordLine(toks)
		return
	}
	p.parseEntryLine(toks)
}

// parseKeywordLine reads a *RESOURCES line: KEYWORD value.
func (p *syntaxParser) parseKeywordLine(toks []token) {
	kw := toks[0]
	if kw.kind != tokWord {
		p.errorf(kw.pos, "expected a keyword, found %s", describe(kw))
		return
	}
	if len(toks) < 2 {
		p.errorf(kw.pos, "expected a value after %s (lines of *%s are KEYWORD value)", kw.text, p.cur.name)
		return
	}
	val := toks[1]
	if val.kind == tokEquals {
		p.errorf(val.pos, "unexpected '=' after %s: lines of *%s are KEYWORD value, without '='", kw.text, p.cur.name)
		return
	}
	if len(toks) > 2 {
		p.errorf(toks[2].pos, "unexpected %s after %s %s: lines of *%s are KEYWORD value", describe(toks[2]), kw.text, val.text, p.cur.name)
		return
	}
	e := &entry{name: kw.text, pos: kw.pos, params: []param{{kw.text, kw.pos, val.text, val.pos, val.span, val.raw}}, end: val.span.end}
	p.cur.entries = append(p.cur.entries, e)
}

// parseEntryLine reads a line of an entry section: either a new entry (a name,
// then KEY=value pairs) or, when the first token is followed by '=', more
// parameters of the entry above.
func (p *syntaxParser) parseEntryLine(toks []token) {
	rest := toks
	if len(toks) < 2 || toks[1].kind != tokEquals {
		name := toks[0]
		if name.kind == tokEquals {
			p.errorf(name.pos, "unexpected '=': expected an entry name or KEY=value")
			return
		}
		e := &entry{name: name.text, pos: name.pos, isDefault: name.kind == tokWord && name.text == "DEFAULT:",
			end: name.span.end}
		p.cur.entries = append(p.cur.entries, e)
		p.last = e
		rest = toks[1:]
	} else if p.last == nil {
		if !p.looseKV(p.cur.name) {
			p.errorf(toks[0].pos, "%s=... before any entry of *%s: expected an entry name first", toks[0].text, p.cur.name)
			return
		}
		p.last = &entry{pos: toks[0].pos}
		p.cur.entries = append(p.cur.entries, p.last)
	}
	p.parseParams(p.last, rest)
}

// parseParams reads KEY=value pairs into e.
func (p *syntaxParser) parseParams(e *entry, toks []token) {
	for i := 0; i < len(toks); {
		key := toks[i]
		if key.kind != tokWord {
			p.errorf(key.pos, "unexpected %s: expected KEY=value", describe(key))
			return
		}
		if i+1 >= len(toks) || toks[i+1].kind != tokEquals {
			p.errorf(key.pos, "unexpected %s: expected KEY=value", describe(key))
			return
		}
		if i+2 >= len(toks) {
			p.errorf(toks[i+1].pos, "expected a value after %s=", key.text)
			return
		}
		val := toks[i+2]
		if val.kind == tokEquals {
			p.errorf(val.pos, "malformed %s=: expected a value after '=', found another '='", key.text)
			return
		}
		if i+3 < len(toks) && toks[i+3].kind == tokEquals {
			p.errorf(toks[i+3].pos, "malformed %s=%s=...: expected one value per KEY=value (quote values that contain '=')", key.text, val.text)
			return
		}
		e.params = append(e.params, param{key.text, key.pos, val.text, val.pos, val.span, val.raw})
		e.end = val.span.end
		i += 3
	}
}

// describe names a token for an error message.
func describe(t token) string {
	switch t.kind {
	case tokEquals:
		return "'='"
	case tokString:
		return fmt.Sprintf("quoted string %q", t.text)
	}
	return fmt.Sprintf("%q", t.text)
}

// defaultsLog is every DEFAULT: parameter of a section in file order, indexed
// by key, so that an entry finds the default in force at its line in
// logarithmic time however many DEFAULT: lines the section has.
type defaultsLog struct {
	params []param
	at     map[string][]int // key -> indexes into params, ascending
}

// get returns the parameter named key of e: its own last one, else the one
// the DEFAULT: lines before it set.
func (e *entry) get(key string) (param, bool) {
	for i := len(e.params) - 1; i >= 0; i-- {
		if e.params[i].key == key {
			return e.params[i], true
		}
	}
	if e.defaults == nil {
		return param{}, false
	}
	idx := e.defaults.at[key]
	k := sort.SearchInts(idx, e.nDefaults) - 1
	if k < 0 {
		return param{}, false
	}
	return e.defaults.params[idx[k]], true
}

// withDefaults walks the entries of s, applying each DEFAULT: line to the
// entries after it (a later DEFAULT: adds to and overrides earlier ones), and
// returns the ordinary entries, each seeing the defaults in force at its line.
func withDefaults(s *section) []*entry {
	log := &defaultsLog{at: map[string][]int{}}
	var out []*entry
	for _, e := range s.entries {
		if !e.isDefault {
			e.defaults, e.nDefaults = log, len(log.params)
			out = append(out, e)
			continue
		}
		for _, p := range e.params {
			log.at[p.key] = append(log.at[p.key], len(log.params))
			log.params = append(log.params, p)
		}
	}
	return out
}

// keywordSet turns a space-separated list into a set.
func keywordSet(list string) map[string]bool {
	set := map[string]bool{}
	for _, k := range strings.Fields(list) {
		set[k] = true
	}
	return set
}

// LooksLike says whether text reads as a UBBCONFIG rather than a
// scenario's JSON: its first line that is not blank or a '#' comment (past
// a byte-order mark) starts a section, '*' (`*RESOURCES`). The CLI takes
// such a file where a scenario goes as --ubbconfig, and the API names it
// in the error of a body that is no JSON.
func LooksLike(text []byte) bool {
	text = bytes.TrimPrefix(text, []byte("\xef\xbb\xbf"))
	for len(text) > 0 {
		line, rest, _ := bytes.Cut(text, []byte("\n"))
		line = bytes.TrimSpace(line)
		switch {
		case len(line) == 0 || line[0] == '#':
			text = rest
		default:
			return line[0] == '*'
		}
	}
	return false
}
