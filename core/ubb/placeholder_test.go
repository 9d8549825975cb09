package ubb

import (
	"strings"
	"testing"
)

// Oracle's sample skeletons (simpapp's ubbsimple, bankapp's ubbshm) are
// to be filled in by hand: `IPCKEY <Replace with a valid IPC Key>`,
// `<SITE1's uname> LMID=SITE1`. Left as they are, they load: each
// placeholder is read as written, with a warning at it when it holds a
// blank (read as one word only since), since none of IPCKEY, UID, a
// machine's name or an unquoted path is used by the simulator. One
// without a blank (<APPDIR1>/ENVFILE) was always a plain word: no
// warning, as before; nor for a quoted "<TUXDIR1>", a string like any
// other. Where a used value is a placeholder, its own check refuses it.
func TestSkeletonPlaceholders(t *testing.T) {
	text := "*RESOURCES\nIPCKEY\t\t<Replace with a valid IPC Key>\nUID <user id from id(1)>\nMASTER SITE1\nMODEL SHM\n" +
		"*MACHINES\n<SITE1's uname> LMID=SITE1\n\tTUXDIR=\"<TUXDIR1>\"\n\tENVFILE=<APPDIR1>/ENVFILE\n" +
		"*GROUPS\nG LMID=SITE1 GRPNO=1\n*SERVERS\nsimpserv SRVGRP=G SRVID=1 CLOPT=\"-s TOUPPER\"\n*SERVICES\nTOUPPER\n"
	m, err := Load(Input{UBBName: "ubbsimple", UBBConfig: text})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Machines) != 1 || m.Machines[0].PMID != "<SITE1's uname>" || m.Machines[0].LMID != "SITE1" {
		t.Errorf("machines %+v, want <SITE1's uname> LMID=SITE1", m.Machines)
	}
	// IPCKEY\t\t: the value at column 9; "UID " column 5
	const note = ": a skeleton's placeholder, read as it is written (tmloadcf needs a real value there)"
	want := []string{
		"ubbsimple:2:9: warning: IPCKEY <Replace with a valid IPC Key>" + note,
		"ubbsimple:3:5: warning: UID <user id from id(1)>" + note,
		"ubbsimple:7:1: warning: the entry name <SITE1's uname>" + note,
	}
	var got []string
	for _, d := range m.Warnings {
		got = append(got, d.String())
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("warnings\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	used := strings.Replace(text, "SRVID=1", "SRVID=<n>", 1)
	_, err = Load(Input{UBBName: "ubbsimple", UBBConfig: used})
	if err == nil || !strings.Contains(err.Error(), "ubbsimple:13:") || !strings.Contains(err.Error(), "<n>") {
		t.Errorf("SRVID=<n>: got %v, want an error at line 13 naming <n>", err)
	}
	// a '<' with no '>' on its line is no placeholder: the words split,
	// "id" after "UID <user " (10 characters) at column 11
	open := strings.Replace(text, "<user id from id(1)>", "<user id", 1)
	_, err = Load(Input{UBBName: "ubbsimple", UBBConfig: open})
	if err == nil || !strings.Contains(err.Error(), `ubbsimple:3:11: unexpected "id" after UID <user`) {
		t.Errorf("UID <user id: got %v, want the KEYWORD value error at 3:11", err)
	}
}
