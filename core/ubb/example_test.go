package ubb_test

import (
	"fmt"

	"github.com/tuxlb/tuxlb/core/ubb"
)

const exampleUBB = `*RESOURCES
MODEL SHM
LDBAL N     # no load balancing yet
*MACHINES
host LMID=SITE1
*GROUPS
APP LMID=SITE1 GRPNO=1
*SERVERS
simpserv SRVGRP=APP SRVID=1 CLOPT="-s TOUPPER" # the sample server
`

// Load reads a UBBCONFIG into its Model; a bad one gives positioned diagnostics.
func ExampleLoad() {
	m, err := ubb.Load(ubb.Input{UBBConfig: exampleUBB, UBBName: "ubbsimple"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(m.Model, m.LDBAL, len(m.Servers), m.Servers[0].ID, m.Servers[0].Services)

	_, err = ubb.Load(ubb.Input{UBBConfig: "*RESOURCES\nMODEL XP\n", UBBName: "bad"})
	fmt.Println(err)
	// Output:
	// SHM false 1 APP/1 [TOUPPER]
	// bad:2:7: MODEL must be SHM or MP, got "XP"
	// bad:1:1: no machines: expected *MACHINES with at least one entry (PMID LMID=name)
}

// Edit sets parameters through the parser: the rest of the text, comments
// included, stays as written.
func ExampleEdit() {
	ldbal, _ := ubb.ParseKey("LDBAL")
	ldbal.Value = "Y"
	minimum, _ := ubb.ParseKey("SERVERS.simpserv@APP.MIN")
	minimum.Value = "3"
	text, err := ubb.Edit(exampleUBB, ldbal, minimum)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(text)

	_, err = ubb.Edit(exampleUBB, ubb.Change{Section: "SERVERS", Entry: "simpserv", Group: "BANK", Key: "MIN", Value: "2"})
	fmt.Println(err)
	// Output:
	// *RESOURCES
	// MODEL SHM
	// LDBAL Y     # no load balancing yet
	// *MACHINES
	// host LMID=SITE1
	// *GROUPS
	// APP LMID=SITE1 GRPNO=1
	// *SERVERS
	// simpserv SRVGRP=APP SRVID=1 CLOPT="-s TOUPPER" MIN=3 # the sample server
	// *SERVERS: no server simpserv in group BANK
}
