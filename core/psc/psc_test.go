package psc

import (
	"reflect"
	"strings"
	"testing"
)

// TestReadTable reads a session saved from tmadmin as it comes: the banner,
// two machines' listings after their prompts, a row cut with '+', rows left
// out as "...", a system service (psc -a) and the psr that followed.
func TestReadTable(t *testing.T) {
	text := `tmadmin - Copyright (c) 1996-2016 Oracle.
All Rights Reserved.

> d -m SITE1

SITE1> psc
Service Name Routine Name Prog Name  Grp Name  ID    Machine  # Done Status
------------ ------------ ---------  --------  --    -------  ------ ------
INQUIRY      INQUIRY      TLR        BANKB1     1      SITE1       2 AVAIL
...
.TMIB        MIB          TLR        BANKB1     1      SITE1       0 AVAIL
WITHDRAW     WITHDRAW     TLR        BANKB1     1      SITE1       0 AVAIL
SITE1> d -m SITE2
SITE2> psc
Service Name Routine Name Prog Name  Grp Name  ID    Machine  # Done Status
------------ ------------ ---------  --------  --    -------  ------ ------
FMLTEST      FMLTEST      serverfml  MATHG+     3     SITE2        1 AVAIL

> psr
Prog Name Queue Name 2ndQueue Name Grp Name ID RqDone Load Done Current Service
--------- ---------- ----------    -------- -- ------ --------- ---------------
BBL       155442                   simple    0      0         0 (  IDLE )
`
	rows, err := Read(text)
	if err != nil {
		t.Fatal(err)
	}
	want := []Row{
		{Line: 9, Service: "INQUIRY", Routine: "INQUIRY", Prog: "TLR", Group: "BANKB1", SrvID: 1, Machine: "SITE1"},
		{Line: 12, Service: "WITHDRAW", Routine: "WITHDRAW", Prog: "TLR", Group: "BANKB1", SrvID: 1, Machine: "SITE1"},
		{Line: 17, Service: "FMLTEST", Routine: "FMLTEST", Prog: "serverfml", Group: "MATHG+", SrvID: 3, Machine: "SITE2"},
	}
	if !reflect.DeepEqual(rows, want) {
		t.Errorf("got  %+v\nwant %+v", rows, want)
	}
	if p, cut := Truncated(rows[2].Group); p != "MATHG" || !cut {
		t.Errorf("Truncated(%q) = %q, %v; want MATHG, true", rows[2].Group, p, cut)
	}
	if p, cut := Truncated("TLR"); p != "TLR" || cut {
		t.Errorf("Truncated(TLR) = %q, %v; want TLR, false", p, cut)
	}
}

// TestReadVerbose reads psc -v's blocks, whole paths and names included,
// with Windows line ends.
func TestReadVerbose(t *testing.T) {
	text := strings.ReplaceAll(`> psc -v
	Service Name: TOUPPER_LONG_NAME
	Service Type: USER
	Routine Name: TOUPPER
	Prog Name: /home/app/simpserv
	Queue Name: 00001.00001
	Process ID: 4321, Machine ID: SITE1
	Group ID: GROUP1, Server ID: 1
	Current Load: 50
	Current status: AVAILABLE

	Service Name: TOLOWER
	Prog Name: /home/app/simpserv
	Group ID: GROUP1, Server ID: 2
`, "\n", "\r\n")
	rows, err := Read(text)
	if err != nil {
		t.Fatal(err)
	}
	want := []Row{
		{Line: 2, Service: "TOUPPER_LONG_NAME", Routine: "TOUPPER", Prog: "/home/app/simpserv", Group: "GROUP1", SrvID: 1, Machine: "SITE1"},
		{Line: 12, Service: "TOLOWER", Prog: "/home/app/simpserv", Group: "GROUP1", SrvID: 2},
	}
	if !reflect.DeepEqual(rows, want) {
		t.Errorf("got  %+v\nwant %+v", rows, want)
	}
}

// TestReadErrors: each problem names its line and what was wanted.
func TestReadErrors(t *testing.T) {
	head := "Service Name Routine Name Prog Name  Grp Name  ID    Machine  # Done Status\n" +
		"------------ ------------ ---------  --------  --    -------  ------ ------\n"
	for _, tc := range []struct{ text, want string }{
		{"just some text\n", "psc: no printservice listing found: want tmadmin psc's header line"},
		{head + "TOUPPER TOUPPER simpserv GROUP1 one SITE1 0 AVAIL\n", `psc:3: ID: want a server's SRVID (a whole number), got "one"`},
		{head + "TOUPPER simpserv GROUP1\n", `psc:3: want 8 columns (Service Name, Routine Name, Prog Name, Grp Name, ID, Machine, # Done, Status), got 3`},
		{"Service Name: A\nGroup ID: G1, Server ID: x\n", `psc:2: Server ID: want a server's SRVID (a whole number), got "x"`},
		{"Service Name: A\nGroup ID: G1\n", "psc:1: service A: the block gives Group ID but no Server ID"},
		{"Service Name: A\nCurrent Load: 50\n", "psc:1: service A: the block gives neither Prog Name nor Group ID"},
		{"Service Name:,Prog Name: simpserv\n", "psc:1: the block's Service Name is empty"},
	} {
		_, err := Read(tc.text)
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("Read(%q): got %v, want an error starting %q", tc.text, err, tc.want)
		}
	}
	// An empty table is a listing that names nothing, not an error.
	if rows, err := Read(head); err != nil || len(rows) != 0 {
		t.Errorf("an empty table: got %v, %v; want no rows, no error", rows, err)
	}
}
