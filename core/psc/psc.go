// Package psc reads the listing of tmadmin's printservice command (psc), as
// an administrator saves it from a running Tuxedo application: which server
// (program, group, SRVID) advertises which service. Servers that advertise
// at run time (CLOPT -A or no -s, with no *SERVICES entry to fall back on)
// say nothing of their services in the UBBCONFIG; a psc listing does. It
// reads both forms: the table
//
//	Service Name Routine Name Prog Name  Grp Name  ID    Machine  # Done Status
//	------------ ------------ ---------  --------  --    -------  ------ ------
//	TOUPPER      TOUPPER      simpserv   GROUP1     1     SITE1        0 AVAIL
//
// and the verbose one (psc after tmadmin's verbose command, or psc -v), a
// block of "Name: value" lines per service:
//
//	Service Name: TOUPPER
//	Prog Name: /home/app/simpserv
//	Group ID: GROUP1, Server ID: 1
//
// tmadmin's table cuts a value too long for its column and ends it with '+'
// ("simpserv.+", "MATHG+"): such a value is kept as written, and
// [Truncated] tells it apart. The package stands alone (the standard library
// only), so the packages that make scenarios can use it.
package psc

import (
	"fmt"
	"strconv"
	"strings"
)

// Row is one service that one server advertises.
type Row struct {
	Line    int    // the line of the listing it was read from (1-based): for messages
	Service string // the service name ('+' at the end: cut by tmadmin)
	Routine string // the function that serves it ("" in the verbose form when not given)
	Prog    string // the server's program, as tmadmin shows it
	Group   string // the server's group (SRVGRP)
	SrvID   int    // the server's SRVID
	Machine string // its LMID ("" when not given)
}

// Truncated reports whether tmadmin cut the value s to fit its column (it
// ends with '+'), and the part it kept.
func Truncated(s string) (prefix string, cut bool) {
	if len(s) > 1 && strings.HasSuffix(s, "+") {
		return s[:len(s)-1], true
	}
	return s, false
}

// Read reads a printservice listing: every table (after its header and
// rule lines; a listing may hold several, one per machine) and every
// verbose block. tmadmin's banner, its prompts ("> psc", "SITE1> psc") and
// the other commands' output around them are skipped; a line inside a
// table that is not a row is an error naming its line. Services whose name
// starts with '.' are Tuxedo's own (psc -a) and are left out. A text with
// no listing at all is an error saying what was looked for.
func Read(text string) ([]Row, error) {
	var rows []Row
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	inTable, found := false, false
	var block *Row // the verbose block being read
	endBlock := func() error {
		if block == nil {
			return nil
		}
		b := block
		block = nil
		switch {
		case b.Service == "":
			return fmt.Errorf("psc:%d: the block's Service Name is empty (want the lines of psc -v)", b.Line)
		case b.Prog == "" && b.Group == "":
			return fmt.Errorf("psc:%d: service %s: the block gives neither Prog Name nor Group ID (want the lines of psc -v)", b.Line, b.Service)
		case b.Group != "" && b.SrvID <= 0:
			return fmt.Errorf("psc:%d: service %s: the block gives Group ID but no Server ID", b.Line, b.Service)
		}
		if !strings.HasPrefix(b.Service, ".") {
			rows = append(rows, *b)
		}
		return nil
	}
	for i, line := range lines {
		n := i + 1
		f := strings.Fields(line)
		switch {
		case isHeader(line):
			if err := endBlock(); err != nil {
				return nil, err
			}
			inTable, found = true, true
			continue
		case inTable && len(f) > 0 && strings.Trim(f[0], "-") == "":
			continue // the rule under the header
		case strings.Contains(line, "Service Name:"):
			if err := endBlock(); err != nil {
				return nil, err
			}
			inTable, found = false, true
			block = &Row{Line: n}
		}
		if block != nil {
			if err := readPairs(block, line, n); err != nil {
				return nil, err
			}
			if len(f) == 0 {
				if err := endBlock(); err != nil {
					return nil, err
				}
			}
			continue
		}
		if !inTable {
			continue
		}
		if len(f) == 0 || strings.HasSuffix(f[0], ">") {
			inTable = false // a blank line or the next prompt ends the table
			continue
		}
		if len(f) == 1 && strings.Trim(f[0], ".") == "" {
			continue // "..." where rows were left out
		}
		r, err := tableRow(f, n)
		if err != nil {
			return nil, err
		}
		if !strings.HasPrefix(r.Service, ".") {
			rows = append(rows, r)
		}
	}
	if err := endBlock(); err != nil {
		return nil, err
	}
	if !found {
		return nil, fmt.Errorf("psc: no printservice listing found: want tmadmin psc's header line " +
			"(Service Name  Routine Name Prog Name  Grp Name  ID  Machine  # Done Status) and its rows, or psc -v's \"Service Name:\" blocks")
	}
	return rows, nil
}

// isHeader reports whether line is the header of psc's table.
func isHeader(line string) bool {
	return strings.Contains(line, "Service Name") && strings.Contains(line, "Prog Name") &&
		strings.Contains(line, "Grp Name") && !strings.Contains(line, ":")
}

// tableRow reads one row of the table: Service, Routine, Prog, Group, ID,
// Machine, # Done, Status (the Machine column may be empty: 7 fields).
func tableRow(f []string, n int) (Row, error) {
	if len(f) < 7 || len(f) > 8 {
		return Row{}, fmt.Errorf("psc:%d: want 8 columns (Service Name, Routine Name, Prog Name, Grp Name, ID, Machine, # Done, Status), got %d: %q",
			n, len(f), strings.Join(f, " "))
	}
	id, err := strconv.Atoi(f[4])
	if err != nil || id < 0 {
		return Row{}, fmt.Errorf("psc:%d: ID: want a server's SRVID (a whole number), got %q", n, f[4])
	}
	r := Row{Line: n, Service: f[0], Routine: f[1], Prog: f[2], Group: f[3], SrvID: id}
	if len(f) == 8 {
		r.Machine = f[5]
	}
	return r, nil
}

// readPairs reads the "Name: value" pairs of a verbose line into r (a line
// may hold several, separated by commas: "Group ID: GROUP1, Server ID: 1").
func readPairs(r *Row, line string, n int) error {
	for _, part := range strings.Split(line, ",") {
		key, val, ok := strings.Cut(part, ":")
		if !ok {
			continue
		}
		key, val = strings.Join(strings.Fields(key), " "), strings.TrimSpace(val)
		switch key {
		case "Service Name":
			r.Service = val
		case "Routine Name":
			r.Routine = val
		case "Prog Name":
			r.Prog = val
		case "Group ID", "Group Name", "Grp Name":
			r.Group = val
		case "Machine ID", "Machine":
			r.Machine = val
		case "Server ID":
			id, err := strconv.Atoi(val)
			if err != nil || id < 0 {
				return fmt.Errorf("psc:%d: Server ID: want a server's SRVID (a whole number), got %q", n, val)
			}
			r.SrvID = id
		}
	}
	return nil
}
