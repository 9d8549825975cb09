package ubb

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"strings"
)

// This file edits UBBCONFIG text through the parser: it finds the entry a
// Change names, replaces the value token of the parameter (or appends the
// parameter to the entry), and leaves every other byte as it was: comments,
// layout, line ends, other entries.

// Change sets one parameter of one entry of a UBBCONFIG.
type Change struct {
	// Section is RESOURCES, MACHINES, GROUPS, SERVERS or SERVICES (no '*').
	Section string
	// Entry names the entry: the LMID of a *MACHINES entry, the name of a
	// *GROUPS entry, the server name of a *SERVERS entry, the service name of
	// a *SERVICES entry; "" in *RESOURCES.
	Entry string
	// Group is the SRVGRP of a *SERVERS entry (needed when the server name
	// alone is ambiguous) or of a SRVGRP-specific *SERVICES entry ("" is the
	// entry without SRVGRP).
	Group string
	// Key is the parameter: LDBAL, MIN, LOAD, NETLOAD...
	Key string
	// Value is the new value, written bare when it can be, quoted otherwise.
	Value string
}

// String writes c as its key and value: SERVERS.ACCT@BANKB1.MIN=3, LDBAL=Y.
func (c Change) String() string {
	if c.Section == "RESOURCES" {
		return c.Key + "=" + c.Value
	}
	name := c.Entry
	if c.Group != "" {
		name += "@" + c.Group
	}
	return c.Section + "." + name + "." + c.Key + "=" + c.Value
}

// ParseKey reads the key of a Change as sweeps and compare variants write it:
//
//	LDBAL, MODEL, RESOURCES.SCANUNIT    a *RESOURCES keyword
//	MACHINES.SITE2.NETLOAD              *MACHINES entry by LMID
//	GROUPS.BANKB1.GRPNO                 *GROUPS entry by name
//	SERVERS.ACCT.MIN                    *SERVERS entry by server name,
//	SERVERS.ACCT@BANKB1.MIN             ... and SRVGRP
//	SERVICES.DEPOSIT.LOAD               *SERVICES entry without SRVGRP
//	SERVICES.DEPOSIT@BANKB1.LOAD        *SERVICES entry with SRVGRP=BANKB1
//
// The section and the keyword are upper-cased (UBBCONFIG keywords are upper
// case); entry and group names are kept as written. An entry name may contain
// dots: the section is before the first dot, the keyword after the last.
// The returned Change has no Value.
func ParseKey(key string) (Change, error) {
	parts := strings.Split(key, ".")
	if _, isSection := editSections[strings.ToUpper(key)]; isSection {
		return Change{}, fmt.Errorf("key %q: a section alone: want %s.NAME.KEY (or RESOURCES.KEY)", key, strings.ToUpper(key))
	}
	if len(parts) == 1 || (len(parts) == 2 && strings.EqualFold(parts[0], "RESOURCES")) {
		c := Change{Section: "RESOURCES", Key: strings.ToUpper(parts[len(parts)-1])}
		return c, checkKeyword(key, c.Key)
	}
	if len(parts) < 3 {
		return Change{}, fmt.Errorf("key %q: want SECTION.NAME[@GROUP].KEY (e.g. SERVERS.ACCT@BANKB1.MIN) or a *RESOURCES keyword (e.g. LDBAL)", key)
	}
	c := Change{Section: strings.ToUpper(parts[0]), Key: strings.ToUpper(parts[len(parts)-1])}
	c.Entry = strings.Join(parts[1:len(parts)-1], ".")
	if at := strings.LastIndexByte(c.Entry, '@'); at >= 0 {
		c.Entry, c.Group = c.Entry[:at], c.Entry[at+1:]
		if c.Group == "" {
			return Change{}, fmt.Errorf("key %q: empty group after '@'", key)
		}
	}
	if c.Entry == "" {
		return Change{}, fmt.Errorf("key %q: empty entry name", key)
	}
	if _, ok := editSections[c.Section]; !ok {
		return Change{}, fmt.Errorf("key %q: unknown section %s: want %s", key, c.Section, editableSections)
	}
	return c, checkKeyword(key, c.Key)
}

// checkKeyword checks that k is a keyword: letters, digits and '_'.
func checkKeyword(key, k string) error {
	if k == "" {
		return fmt.Errorf("key %q: empty keyword", key)
	}
	for _, r := range k {
		if !(r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_') {
			return fmt.Errorf("key %q: keyword %s: want letters, digits and '_'", key, k)
		}
	}
	return nil
}

// Edit returns the UBBCONFIG text with the changes made, in order; see
// Input.Edit. The edited text is checked alone (no DMCONFIG, no advertise
// map): use Input.Edit when they matter.
func Edit(text string, changes ...Change) (string, error) {
	return Input{UBBConfig: text}.Edit(changes...)
}

// Edit returns in.UBBConfig with the changes made, in order, each through the
// parser: setting a parameter that the entry has replaces its value token in
// place (the last one, when the entry gives it twice); setting one it lacks
// appends " KEY=VALUE" after the entry's last token (on its last continuation
// line, before any comment); a *RESOURCES keyword that is missing gets a line
// of its own right after the *RESOURCES header. Nothing else changes: not the
// comments, the layout, the other entries nor the line ends.
//
// A *SERVICES change for a service that has no such entry adds one, when the
// service is known (listed, advertised, or imported through the DMCONFIG):
// "NAME KEY=VALUE" (with SRVGRP=GROUP for a group) on a line of its own
// right after the first *SERVICES header, before any DEFAULT: line, so that
// no default applies to it (a *SERVICES section is added at the end when
// there is none).
//
// Errors: a text that does not parse, an entry that does not exist (naming
// it), a server name that matches several entries without a group (naming
// their lines), and, after the changes, any error of loading the edited
// text with in's DMCONFIG and advertise map (so a bad value is reported as
// the loader reports it, at its line and column). With no changes the text
// is returned as it is.
func (in Input) Edit(changes ...Change) (string, error) {
	if len(changes) == 0 {
		return in.UBBConfig, nil
	}
	for _, c := range changes {
		text, err := in.apply(c)
		if err != nil {
			return "", err
		}
		in.UBBConfig = text
	}
	if _, err := Load(in); err != nil {
		return "", err
	}
	return in.UBBConfig, nil
}

// editSections are the sections a Change can address, each with the function
// that finds the entry a Change names (nil when it has none yet).
var editSections = map[string]func(secs []*section, c Change) (*entry, error){
	"RESOURCES": findResource,
	"MACHINES":  findMachine,
	"GROUPS":    findGroup,
	"SERVERS":   findServer,
	"SERVICES":  findService,
}

const editableSections = "RESOURCES, MACHINES, GROUPS, SERVERS or SERVICES"

// apply makes one change to in.UBBConfig.
func (in Input) apply(c Change) (string, error) {
	text := in.UBBConfig
	find, ok := editSections[c.Section]
	if !ok {
		return "", fmt.Errorf("%s: cannot edit section *%s: want %s", c, c.Section, editableSections)
	}
	if err := checkKeyword(c.String(), c.Key); err != nil {
		return "", err
	}
	if c.Section == "RESOURCES" && c.Entry != "" {
		return "", fmt.Errorf("%s: *RESOURCES lines have no entry name (got %q)", c, c.Entry)
	}
	if c.Group != "" && c.Section != "SERVERS" && c.Section != "SERVICES" {
		return "", fmt.Errorf("%s: a group (@%s) names entries of *SERVERS and *SERVICES only", c, c.Group)
	}
	if len(text) >= math.MaxInt32 {
		return "", fmt.Errorf("%s: the UBBCONFIG is too large to edit (2 GiB or more)", c)
	}
	if strings.ContainsAny(c.Value, "\r\n") {
		return "", fmt.Errorf("%s: the value must be on one line", c)
	}
	secs, diags := parseSyntax(cmp.Or(in.UBBName, "UBBCONFIG"), text, "RESOURCES", isResourcesSection, noLooseKV)
	if len(diags) > 0 {
		return "", ErrorList(diags)
	}
	var mine []*section
	for _, s := range secs {
		if s.name == c.Section {
			mine = append(mine, s)
		}
	}
	e, err := find(mine, c)
	if err != nil {
		return "", err
	}
	if e != nil {
		return setParam(text, e, c), nil
	}
	if c.Section == "RESOURCES" {
		if len(mine) == 0 {
			return "", fmt.Errorf("%s: the UBBCONFIG has no *RESOURCES section", c)
		}
		return insertLine(text, mine[0].body, c.Key+" "+quoteValue(c.Value, false)), nil
	}
	return in.addService(text, mine, c)
}

// setParam sets c.Key in entry e: its last own value token is replaced,
// keeping quotes if it had them; else " KEY=VALUE" goes after its last token.
func setParam(text string, e *entry, c Change) string {
	for i := len(e.params) - 1; i >= 0; i-- {
		if p := e.params[i]; p.key == c.Key {
			quoted := text[p.valSpan.off] == '"'
			return text[:p.valSpan.off] + quoteValue(c.Value, quoted) + text[p.valSpan.end:]
		}
	}
	return text[:e.end] + " " + c.Key + "=" + quoteValue(c.Value, false) + text[e.end:]
}

// addService adds a *SERVICES entry for a known service that has none.
func (in Input) addService(text string, secs []*section, c Change) (string, error) {
	m, err := Load(in)
	if err != nil {
		return "", fmt.Errorf("%s: no such *SERVICES entry, and the UBBCONFIG does not load to tell whether %s is a known service: %w", c, c.Entry, err)
	}
	if m.Service(c.Entry) == nil {
		return "", fmt.Errorf("*SERVICES: no service %s: no entry lists it, no server advertises it, no DMCONFIG imports it", c.Entry)
	}
	line := quoteValue(c.Entry, false)
	if c.Group != "" {
		if m.groupIndex(c.Group) < 0 {
			return "", fmt.Errorf("*SERVICES: no group %s for service %s: want a group of *GROUPS", c.Group, c.Entry)
		}
		line += " SRVGRP=" + quoteValue(c.Group, false)
	}
	line += " " + c.Key + "=" + quoteValue(c.Value, false)
	if len(secs) > 0 {
		return insertLine(text, secs[0].body, line), nil
	}
	nl := lineEnding(text, 0)
	if text != "" && !strings.HasSuffix(text, "\n") {
		text += nl
	}
	return text + "*SERVICES" + nl + line + nl, nil
}

// groupIndex returns the index of the group named name, or -1.
func (m *Model) groupIndex(name string) int {
	for i := range m.Groups {
		if m.Groups[i].Name == name {
			return i
		}
	}
	return -1
}

// insertLine inserts line as a line of its own at byte at, the start of a
// line (or the end of the text), ending it like the line before.
func insertLine(text string, at int, line string) string {
	nl := lineEnding(text, max(0, at-1))
	prefix := text[:at]
	if at > 0 && text[at-1] != '\n' {
		prefix += nl // the header was the last line and had no line end
	}
	return prefix + line + nl + text[at:]
}

// lineEnding returns the line end ("\r\n" or "\n") of the line holding byte
// at, else of the first line that has one, else "\n".
func lineEnding(text string, at int) string {
	if i := strings.IndexByte(text[at:], '\n'); i >= 0 {
		if at+i > 0 && text[at+i-1] == '\r' {
			return "\r\n"
		}
		return "\n"
	}
	if at > 0 {
		return lineEnding(text, 0)
	}
	return "\n"
}

// quoteValue writes v as a value token: bare when the lexer reads it back as
// one word (and quoted is false), else double-quoted with '"' and '\' escaped.
func quoteValue(v string, quoted bool) string {
	if !quoted && v != "" && !strings.ContainsAny(v, " \t\f\v#=\"") && !strings.HasPrefix(v, "*") {
		return v
	}
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(v) + `"`
}

// findResource returns the *RESOURCES line of c.Key (the last, which is the
// one in force), or nil.
func findResource(secs []*section, c Change) (*entry, error) {
	var found *entry
	for _, s := range secs {
		for _, e := range s.entries {
			if e.name == c.Key {
				found = e
			}
		}
	}
	return found, nil
}

// findMachine returns the *MACHINES entry whose LMID is c.Entry.
func findMachine(secs []*section, c Change) (*entry, error) {
	for _, e := range entriesOf(secs) {
		if p, ok := e.get("LMID"); ok && p.value == c.Entry {
			return e, nil
		}
	}
	return nil, fmt.Errorf("*MACHINES: no machine with LMID %s", c.Entry)
}

// findGroup returns the *GROUPS entry named c.Entry.
func findGroup(secs []*section, c Change) (*entry, error) {
	for _, e := range entriesOf(secs) {
		if e.name == c.Entry {
			return e, nil
		}
	}
	return nil, fmt.Errorf("*GROUPS: no group %s", c.Entry)
}

// findServer returns the one *SERVERS entry of server c.Entry (in group
// c.Group, when given).
func findServer(secs []*section, c Change) (*entry, error) {
	var found []*entry
	var groups []string
	for _, e := range entriesOf(secs) {
		g, _ := e.get("SRVGRP")
		if e.name == c.Entry && (c.Group == "" || g.value == c.Group) {
			found = append(found, e)
			groups = append(groups, g.value)
		}
	}
	switch {
	case len(found) == 1:
		return found[0], nil
	case len(found) == 0 && c.Group != "":
		return nil, fmt.Errorf("*SERVERS: no server %s in group %s", c.Entry, c.Group)
	case len(found) == 0:
		return nil, fmt.Errorf("*SERVERS: no server %s", c.Entry)
	}
	lines := make([]string, len(found))
	for i, e := range found {
		lines[i] = fmt.Sprintf("line %d (SRVGRP=%s)", e.pos.line, groups[i])
	}
	hint := fmt.Sprintf("name one as %s@GROUP", c.Entry)
	if c.Group != "" {
		hint = "set them one at a time in the text"
	}
	return nil, errors.New("*SERVERS: server " + c.Entry + groupSuffix(c.Group) + " is ambiguous: " +
		strings.Join(lines, ", ") + "; " + hint)
}

func groupSuffix(g string) string {
	if g == "" {
		return ""
	}
	return " in group " + g
}

// findService returns the *SERVICES entry of service c.Entry without SRVGRP
// (or with SRVGRP=c.Group): the last, which is the one in force; nil when
// there is none.
func findService(secs []*section, c Change) (*entry, error) {
	var found *entry
	for _, e := range entriesOf(secs) {
		g, ok := e.get("SRVGRP")
		if e.name == c.Entry && ok == (c.Group != "") && g.value == c.Group {
			found = e
		}
	}
	return found, nil
}
