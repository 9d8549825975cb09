package starter

import (
	"cmp"
	"errors"
	"github.com/tuxlb/tuxlb/core/ulog"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/tuxlb/tuxlb/core"
	"github.com/tuxlb/tuxlb/core/diag"
	"github.com/tuxlb/tuxlb/core/ubb"
)

// runtimeUBB has servers that advertise at run time (no -s, no *SERVICES):
// simpserv in two groups, a server written with its path and MIN=2; beside
// them a server with -s and Tuxedo's TMQUEUE.
const runtimeUBB = `*RESOURCES
MODEL SHM
*MACHINES
h LMID=site1
*GROUPS
GROUP1 LMID=site1 GRPNO=1
MATHGROUP LMID=site1 GRPNO=2
*SERVERS
simpserv SRVGRP=GROUP1 SRVID=1 CLOPT="-A"
simpserv SRVGRP=MATHGROUP SRVID=1
/opt/app/bin/acct SRVGRP=MATHGROUP SRVID=5 MIN=2
tlr SRVGRP=GROUP1 SRVID=2 CLOPT="-s INQUIRY"
TMQUEUE SRVGRP=GROUP1 SRVID=3 CLOPT="-s QSPACE:TMQUEUE"
`

// TestAdvertise: what servers were seen advertising becomes the advertise
// map, matched by group and SRVID (a group tmadmin cut with '+' by what it
// kept), else by program; what cannot be used is said.
func TestAdvertise(t *testing.T) {
	text := runtimeUBB
	m, err := core.LoadModel(ubb.Input{UBBName: "u", UBBConfig: text})
	if err != nil {
		t.Fatal(err)
	}
	into := map[string][]string{}
	warns := Advertise(m, into, []Advertised{
		{Server: "simpserv", Group: "GROUP1", SrvID: 1, Services: []string{"TOUPPER"}, From: "psc:3"},
		{Server: "simpserv", Group: "MATHG+", SrvID: 1, Services: []string{"TOLOWER", "TOUPPER"}, From: "psc:4"},
		{Server: "acct", Group: "MATHGROUP", SrvID: 6, Services: []string{"DEPOSIT"}, From: "psc:5"},
		{Server: "tlr", Group: "GROUP1", SrvID: 2, Services: []string{"INQUIRY", "AUDIT"}, From: "psc:6"},
		{Server: "TMQUEUE", Group: "GROUP1", SrvID: 3, Services: []string{"QSPACE"}, From: "psc:7"},
		{Server: "ghost", Group: "GROUP1", SrvID: 9, Services: []string{"X"}, From: "psc:8"},
		{Server: "/other/path/acct", Services: []string{"WITHDRAW", "DEPO+"}, From: "ULOG.120526:40"},
	})
	want := map[string][]string{"simpserv": {"TOUPPER", "TOLOWER"}, "/opt/app/bin/acct": {"DEPOSIT", "WITHDRAW"}}
	if !reflect.DeepEqual(into, want) {
		t.Errorf("advertise: got %v, want %v", into, want)
	}
	wantWarns := []string{
		"psc:6: server tlr (group GROUP1) advertises AUDIT at run time besides its -s services: not simulated (name them in its CLOPT -s)",
		"psc:8: no server ghost (group GROUP1, SRVID 9) of the UBBCONFIG: its services (X) are left out",
		// DEPOSIT is not known to m (read without the map), so DEPO+ begins no known service.
		"ULOG.120526:40: service DEPO+ was cut by tmadmin and 0 known services begin DEPO: left out (psc -v gives whole names)",
	}
	if !reflect.DeepEqual(warns, wantWarns) {
		t.Errorf("warnings:\n  %s\nwant\n  %s", strings.Join(warns, "\n  "), strings.Join(wantWarns, "\n  "))
	}
}

// TestNewFromPSC: a psc listing gives the servers that advertise at run
// time their services, so the starter scenario offers them and runs.
func TestNewFromPSC(t *testing.T) {
	text := runtimeUBB
	// tlr offers INQUIRY: the scenario runs, and the servers that
	// advertise at run time are named, each offering nothing.
	sc, warns, err := NewWithWarnings(Files{UBBConfig: &text})
	if err != nil {
		t.Fatal(err)
	}
	const hint = " advertises at run time and offers nothing in this scenario: give a ULOG (--ulog) or a psc listing (--psc), or an `advertise` entry"
	if want := []string{"server simpserv (group GROUP1)" + hint, "server simpserv (group MATHGROUP)" + hint,
		"server /opt/app/bin/acct (group MATHGROUP)" + hint}; !reflect.DeepEqual(warns, want) || len(sc.Services) != 1 {
		t.Errorf("with tlr: %d services, warnings\n  %s\nwant 1 and\n  %s", len(sc.Services), strings.Join(warns, "\n  "), strings.Join(want, "\n  "))
	}
	want := "server simpserv (group GROUP1) runs SIMPSERV, server simpserv (group MATHGROUP) runs SIMPSERV, " +
		"server /opt/app/bin/acct (group MATHGROUP) runs ACCT; give a ULOG (--ulog) or a psc listing (--psc), or `advertise` entries, for their real services"
	// tlr offers INQUIRY through -s, so something runs: take tlr out, and
	// every server runs a stand-in service named like it
	noTLR := strings.Replace(text, "tlr SRVGRP=GROUP1 SRVID=2 CLOPT=\"-s INQUIRY\"\n", "", 1)
	if stood, w, err := NewWithWarnings(Files{UBBConfig: &noTLR}); err != nil || !strings.HasSuffix(strings.Join(w, "\n"), want) ||
		!reflect.DeepEqual(stood.Advertise, map[string][]string{"simpserv": {"SIMPSERV"}, "/opt/app/bin/acct": {"ACCT"}}) {
		t.Fatalf("without a listing: %v, advertise %v, warnings %q\nwant the stand-ins: %s", err, stood.Advertise, w, want)
	}
	listing := `> psc
Service Name Routine Name Prog Name  Grp Name  ID    Machine  # Done Status
------------ ------------ ---------  --------  --    -------  ------ ------
TOUPPER      TOUPPER      simpserv   GROUP1     1     site1        0 AVAIL
TOUPPER      TOUPPER      simpserv   MATHG+     1     site1        0 AVAIL
DEPOSIT      DEPOSIT      acct       MATHG+     5     site1        0 AVAIL
DEPOSIT      DEPOSIT      acct       MATHG+     6     site1        0 AVAIL
QSPACE       TMQUEUE      TMQUEUE    GROUP1     3     site1        0 AVAIL
`
	sc, warns, err = NewWithWarnings(Files{UBBConfig: &noTLR, PSC: &listing})
	if err != nil {
		t.Fatal(err)
	}
	if len(warns) != 0 {
		t.Errorf("warnings: %q", warns)
	}
	wantAdv := map[string][]string{"simpserv": {"TOUPPER"}, "/opt/app/bin/acct": {"DEPOSIT"}}
	if !reflect.DeepEqual(sc.Advertise, wantAdv) {
		t.Errorf("advertise: got %v, want %v", sc.Advertise, wantAdv)
	}
	if len(sc.Services) != 2 || sc.Services["TOUPPER"].ServiceTime == nil || sc.Services["DEPOSIT"].ServiceTime == nil {
		t.Errorf("services: got %v, want TOUPPER and DEPOSIT timed", sc.Services)
	}
	sc.Workload.Generate.DurationMS = 2000
	r, err := core.Run(sc, core.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Requests.Completed == 0 || len(r.Requests.Failed) != 0 {
		t.Errorf("run: %d completed, failed %v; want requests that complete", r.Requests.Completed, r.Requests.Failed)
	}
	// A listing that is not one is an error naming the psc.
	bad := "Service Name Routine Name Prog Name  Grp Name  ID    Machine  # Done Status\nTOUPPER TOUPPER simpserv GROUP1 x site1 0 AVAIL\n"
	if _, err := New(Files{UBBConfig: &noTLR, PSC: &bad}); err == nil || !strings.Contains(err.Error(), `psc:2: ID: want a server's SRVID`) {
		t.Errorf("a bad listing: got %v", err)
	}
}

// TestPSCPathInWarnings: a warning about a psc listing's row names the
// listing by the path it was read from (Files.PSCPath, FitSources.PSCPath)
// and its line, as the configuration's are; without a path, "psc".
func TestPSCPathInWarnings(t *testing.T) {
	text := runtimeUBB
	listing := `Service Name Routine Name Prog Name  Grp Name  ID    Machine  # Done Status
------------ ------------ ---------  --------  --    -------  ------ ------
TOUPPER      TOUPPER      simpserv   GROUP1     1     site1        0 AVAIL
X            X            ghost      GROUP1     9     site1        0 AVAIL
`
	const ghost = ":4: no server ghost (group GROUP1, SRVID 9) of the UBBCONFIG: its services (X) are left out"
	for _, path := range []string{"", "listings/prod.psc"} {
		want := cmp.Or(path, "psc") + ghost
		_, warns, err := NewWithWarnings(Files{UBBConfig: &text, PSC: &listing, PSCPath: path})
		if err != nil || !slices.Contains(warns, want) {
			t.Errorf("New, PSCPath %q: got %v, warnings %q; want %q among them", path, err, warns, want)
		}
		trace := "time_ms,service,service_ms\n0,TOUPPER,1\n"
		rep, err := Fit(FitSources{Trace: &trace, UBBConfig: &text, PSC: &listing, PSCPath: path})
		if err != nil || !slices.Contains(rep.Warnings, want) {
			t.Errorf("Fit, PSCPath %q: got %v, warnings %q; want %q among them", path, err, rep.Warnings, want)
		}
	}
}

// TestRealConfigsStart runs the starter on every real configuration of
// testdata/tuxedo-configs. Each either starts (and compiles), or is one of
// the files that are not valid UBBCONFIGs (an error at a line). Those
// whose every server advertises at run time start with a stand-in service
// per server, named like it, and a warning naming each and what would give
// their real services. The servers were read off each file by hand.
func TestRealConfigsStart(t *testing.T) {
	const need = "; give a ULOG (--ulog) or a psc listing (--psc), or `advertise` entries, for their real services"
	runtime := map[string]string{
		"PacktPublishing__Modernizing-Oracle-Tuxedo-Applications-with-Python__Chapter05__ubbconfig.in.ubb": "server tpadvertisex.py (group GROUP1) runs TPADVERTISEX.PY",
		// TMQUEUE (-s QSPACE) and TMQFORWARD are system servers.
		"PacktPublishing__Modernizing-Oracle-Tuxedo-Applications-with-Python__Chapter08__ubbconfig.in.ubb": "server proc.py (group GROUP2) runs PROC.PY",
		"aivarsk__tuxedo-python__demo__py3__ubbconfig.in.ubb":                                              "server ecb.py (group GROUP1) runs ECB.PY, server api.py (group GROUP1) runs API.PY, server mem.py (group GROUP1) runs MEM.PY",
		// Five entries of one program in one group; -sSERVER1 follows "--".
		"endurox-dev__endurox__atmitest__test090_tuxmig__ubb_logs.ubb": "server exbenchsv (group SITE1_GRP) runs EXBENCHSV",
		// WSL is a system server.
		"fanshuangstrive__comm_server__sim__tux_server__ubbsimple.wsl.ubb": "server simpserv (group GROUP1) runs SIMPSERV",
		"fuxedo__fuxedo__install-tests__blocktime__ubbconfig.in.ubb":       "server server (group GROUP1) runs SERVER",
		"fuxedo__fuxedo__install-tests__server__ubbconfig.in.ubb": "server server (group GROUP1) runs SERVER, server mtserver (group GROUP1) runs MTSERVER, server failserver (group GROUP1) runs FAILSERVER, " +
			"server defserver (group GROUP1) runs DEFSERVER, server defmtserver (group GROUP1) runs DEFMTSERVER",
		"fuxedo__fuxedo__install-tests__tmshutdown__ubbconfig.in.ubb": "server server (group GROUP1) runs SERVER",
		"fuxedo__fuxedo__install-tests__trx__ubbconfig.in.ubb":        "server server (group GROUP1) runs SERVER, server server1 (group GROUP1) runs SERVER1, server server2 (group GROUP1) runs SERVER2",
		// No CLOPT (DEFAULT: -A), and *SERVICES is empty.
		"Billpro-Software__ninja-bea-tuxedo-8-1__bea__tuxedo8.1__samples__atmi__STOCKAPP__UBBCBSHM.ubb": "server FUNDUPSR (group COBAPI) runs FUNDUPSR, " +
			"server FUNDPRSR (group COBAPI) runs FUNDPRSR, server BUYSELL (group COBAPI) runs BUYSELL",
		// TMQUEUE and TMQFORWARD are system servers; *SERVICES is empty.
		"Billpro-Software__ninja-bea-tuxedo-8-1__bea__tuxedo8.1__samples__atmi__qsample__ubb.sample.ubb": "server server (group GROUP1) runs SERVER",
		// *SERVICES has only a DEFAULT: line; bdb1 is MIN=2 on one queue.
		"cSploit__android__cSploit__jni__bdb__test__xa__src2__tuxconfig.sh__heredoc_ubb.cfg.ubb": "server bdb1 (group BDBG) runs BDB1, server bdb2 (group BDBG) runs BDB2",
		// No CLOPT, no *SERVICES section.
		"PacktPublishing__Modernizing-Oracle-Tuxedo-Applications-with-Python__Chapter09__ubbconfig.in.ubb": "server db.py (group GROUP1) runs DB.PY, server dbxathr.py (group GROUP2) runs DBXATHR.PY",
		// The WSL entry is commented out.
		"PacktPublishing__Modernizing-Oracle-Tuxedo-Applications-with-Python__Chapter10__ubbconfig.in.ubb": "server ping.py (group GROUP1) runs PING.PY, server api.py (group GROUP1) runs API.PY",
		// TMQUEUE and TMQFORWARD are system servers.
		"PacktPublishing__Modernizing-Oracle-Tuxedo-Applications-with-Python__Chapter11__ubbconfig.in.ubb": "server ecb.py (group GROUP1) runs ECB.PY, server app.py (group GROUP1) runs APP.PY, server out.py (group GROUP1) runs OUT.PY",
		"PacktPublishing__Modernizing-Oracle-Tuxedo-Applications-with-Python__Chapter12__ubbconfig.in.ubb": "server app.py (group GROUP1) runs APP.PY, server natsgw.py (group GROUP1) runs NATSGW.PY",
		// CORBA: TMSYSEVT, TMFFNAME, TMIFRSVR and ISL are system servers; *SERVICES is empty.
		"Billpro-Software__ninja-bea-tuxedo-8-1__bea__tuxedo8.1__samples__corba__university__transactions__ubb_t.mk.ubb": "server univt_server (group ORA_GRP) runs UNIVT_SERVER",
		// CLOPT "-A --" and an empty *SERVICES; the WSL entry is commented out.
		"endurox-dev__endurox-perl__ubbconfig.template.ubb": "server PERLSVR (group APPGRP) runs PERLSVR",
	}
	invalid := map[string]bool{ // NEGATIVE in SOURCES.md
		"Setofnosets__Tuxedo1__ubbconfig.ubb":                                 true,
		"endurox-dev__endurox__atmitest__test090_tuxmig__ubb_config1.ubb":     true,
		"endurox-dev__endurox__atmitest__test090_tuxmig__ubb_network.ubb":     true,
		"endurox-dev__endurox__atmitest__test090_tuxmig__ubb_syntax_err1.ubb": true,
		"endurox-dev__endurox__atmitest__test090_tuxmig__ubb_syntax_err2.ubb": true,
		"endurox-dev__endurox__atmitest__test090_tuxmig__ubb_syntax_err3.ubb": true,
		"endurox-dev__endurox__atmitest__test090_tuxmig__ubb_syntax_err4.ubb": true,
		"mdafsar15__Tuxedo__ubbsimple.txt.ubb":                                true,
	}
	// A template of no server at all (the WSL entry commented out), which
	// tmloadcf would load once its placeholders are filled and tmboot start
	// (a BBL alone), has nothing to run: the starter says so.
	empty := map[string]string{
		"gitpan__Tuxedo__ubbconfig.template.ubb": "no server offers a service, so there is nothing to run: the configuration has no server (no *SERVERS entry)",
	}
	// The DMCONFIG read with a UBBCONFIG: its gateway group's GWTDOMAIN
	// advertises the DMCONFIG's imports (Mail), the configuration's only service.
	dmconfig := map[string]string{
		"bernardjason__demowls__tuxedo__config__UBB.src.ubb": "bernardjason__demowls__tuxedo__config__BDM.src.dmconfig",
	}
	dms, _ := filepath.Glob("../../testdata/tuxedo-configs/*.dmconfig")
	if len(dms) != len(dmconfig) {
		t.Errorf("%d DMCONFIG files in testdata/tuxedo-configs, want the %d read with their UBBCONFIG", len(dms), len(dmconfig))
	}
	paths, _ := filepath.Glob("../../testdata/tuxedo-configs/*.ubb")
	if len(paths) != 57 {
		t.Fatalf("%d configurations in testdata/tuxedo-configs, want 57", len(paths))
	}
	started := 0
	for _, p := range paths {
		name := filepath.Base(p)
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		files := Files{UBBConfig: &text}
		if dm := dmconfig[name]; dm != "" {
			d, err := os.ReadFile("../../testdata/tuxedo-configs/" + dm)
			if err != nil {
				t.Fatal(err)
			}
			dmText := string(d)
			files.DMConfig, files.DMPath = &dmText, dm
		}
		sc, warns, err := NewWithWarnings(files)
		var de *diag.Error
		switch {
		case empty[name] != "":
			if err == nil || !strings.Contains(err.Error(), empty[name]) {
				t.Errorf("%s: got %v, want %q", name, err, empty[name])
			}
			continue
		case invalid[name]:
			if !errors.As(err, &de) || len(de.Diagnostics) == 0 || de.Diagnostics[0].Line == 0 {
				t.Errorf("%s: got %v, want the configuration's errors at their lines", name, err)
			}
			continue
		case err != nil:
			t.Errorf("%s: %v", name, err)
			continue
		case runtime[name] != "":
			want := ": " + runtime[name] + need
			if w := strings.Join(warns, "\n"); !strings.Contains(w, "each runs one stand-in service named like it, so that the configuration runs as it is"+want) {
				t.Errorf("%s: warnings\n%s\nwant the stand-ins%s", name, w, want)
			}
		}
		if _, err := core.Compile(sc, core.RunOptions{}); err != nil {
			t.Errorf("%s: the starter does not compile: %v", name, err)
		}
		started++
	}
	if started != 57-len(invalid)-len(empty) {
		t.Errorf("%d started, want %d", started, 57-len(invalid)-len(empty))
	}
	// With a psc listing of its five servers (services made up, one per
	// server, mtserver two), fuxedo's server test starts and runs.
	b, err := os.ReadFile("../../testdata/tuxedo-configs/fuxedo__fuxedo__install-tests__server__ubbconfig.in.ubb")
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	listing := "Service Name Routine Name Prog Name  Grp Name  ID    Machine  # Done Status\n" +
		"------------ ------------ ---------  --------  --    -------  ------ ------\n" +
		"ECHO         ECHO         server     GROUP1     1     tuxapp       0 AVAIL\n" +
		"MTECHO       MTECHO       mtserver   GROUP1     2     tuxapp       0 AVAIL\n" +
		"MTSLEEP      MTSLEEP      mtserver   GROUP1     2     tuxapp       0 AVAIL\n" +
		"FAIL         FAIL         failserver GROUP1     3     tuxapp       0 AVAIL\n" +
		"DEF          DEF          defserver  GROUP1     4     tuxapp       0 AVAIL\n" +
		"DEFMT        DEFMT        defmtserv+ GROUP1     5     tuxapp       0 AVAIL\n"
	sc, warns, err := NewWithWarnings(Files{UBBConfig: &text, PSC: &listing})
	if err != nil || len(warns) != 0 {
		t.Fatalf("fuxedo server with a listing: %v, warnings %q", err, warns)
	}
	if len(sc.Advertise) != 5 || len(sc.Services) != 6 || !reflect.DeepEqual(sc.Advertise["mtserver"], []string{"MTECHO", "MTSLEEP"}) {
		t.Errorf("advertise %v, %d services; want 5 entries (mtserver: MTECHO MTSLEEP), 6 services", sc.Advertise, len(sc.Services))
	}
	sc.Workload.Generate.DurationMS = 2000
	r, err := core.Run(sc, core.RunOptions{})
	if err != nil || r.Requests.Completed == 0 || len(r.Requests.Failed) != 0 {
		t.Errorf("run: %v, %+v", err, r.Requests)
	}
}

// TestJoltSampleJREPSVR: Oracle's Jolt sample, LDBAL N, boots JSL and
// JREPSVR (the Jolt repository server, no -s) before simpserv, whose
// TOUPPER is the one *SERVICES entry. Read as an application server,
// JREPSVR advertised TOUPPER and, first in scan order, took every request;
// as the system server it is, it advertises nothing and simpserv serves
// them all.
func TestJoltSampleJREPSVR(t *testing.T) {
	text := `*RESOURCES
MODEL SHM
LDBAL N
*MACHINES
host LMID=SITE1
*GROUPS
JSLGRP LMID=SITE1 GRPNO=1
JREPGRP LMID=SITE1 GRPNO=2
APPGRP LMID=SITE1 GRPNO=3
*SERVERS
JSL SRVGRP=JSLGRP SRVID=30 CLOPT="-A -- -n //host:5000 -M 10 -x 10 -m 2"
JREPSVR SRVGRP=JREPGRP SRVID=31 CLOPT="-A -- -W -P /app/udataobj/jolt/repository/jrepository"
simpserv SRVGRP=APPGRP SRVID=1 CLOPT="-A"
*SERVICES
TOUPPER
`
	sc, err := New(Files{UBBConfig: &text})
	if err != nil {
		t.Fatal(err)
	}
	sc.Workload.Generate.DurationMS = 5000
	r, err := core.Run(sc, core.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	byServer := map[string]int64{}
	for _, s := range r.Servers {
		byServer[s.Name] += s.Requests
	}
	if byServer["JREPSVR"] != 0 || byServer["simpserv"] == 0 || byServer["simpserv"] != r.Requests.Completed {
		t.Errorf("requests by server %v of %d completed: want all on simpserv, none on JREPSVR", byServer, r.Requests.Completed)
	}
}

// TestFitULOGAdvertisesAtRunTime: a configuration with no *SERVICES whose
// one server advertises at run time (-A) cannot start alone; the ULOG shows
// simpserv at work on TOUPPER, which makes TOUPPER known and simpserv's,
// and the fitted scenario runs it. Twice in the log, 10:00:00.001-.004 and
// 10:00:01.001-.003: own work 3 and 2 ms; the client's two calls are the
// arrivals.
func TestFitULOGAdvertisesAtRunTime(t *testing.T) {
	ubbText := `*RESOURCES
IPCKEY 123456
MASTER site1
MODEL SHM
*MACHINES
"host1" LMID=site1 TUXDIR="/opt/tux" APPDIR="/app" TUXCONFIG="/app/tuxconfig"
*GROUPS
GROUP1 LMID=site1 GRPNO=1
*SERVERS
simpserv SRVGRP=GROUP1 SRVID=1 CLOPT="-A"
`
	log := `100000.000.host1!simpcl.100.1.0: TRACE:at: { tpcall("TOUPPER", 0x1, 0, 0x2, 0x3, 0x0)
100000.001.host1!simpserv.200.1.0: TRACE:at: { tpservice({"TOUPPER", 0x0, 0x0, 0, 0, 0, {0, 0, 0}})
100000.004.host1!simpserv.200.1.0: TRACE:at: } tpservice
100000.005.host1!simpcl.100.1.0: TRACE:at: } tpcall = 1
100001.000.host1!simpcl.100.1.0: TRACE:at: { tpcall("TOUPPER", 0x1, 0, 0x2, 0x3, 0x0)
100001.001.host1!simpserv.200.1.0: TRACE:at: { tpservice({"TOUPPER", 0x0, 0x0, 0, 0, 0, {0, 0, 0}})
100001.003.host1!simpserv.200.1.0: TRACE:at: } tpservice
100001.004.host1!simpcl.100.1.0: TRACE:at: } tpcall = 1
`
	if _, w, err := NewWithWarnings(Files{UBBConfig: &ubbText}); err != nil || !strings.Contains(strings.Join(w, "\n"), "server simpserv (group GROUP1) runs SIMPSERV;") {
		t.Fatalf("without the log: %v, warnings %q; want simpserv named, running a stand-in", err, w)
	}
	rep, err := Fit(FitSources{UBBConfig: &ubbText, ULOG: []ulog.File{{Name: "ULOG.120526", Text: log}}})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(rep.Advertise, map[string][]string{"simpserv": {"TOUPPER"}}) {
		t.Errorf("report's advertise: %v", rep.Advertise)
	}
	for _, w := range rep.Warnings {
		if strings.Contains(w, "TOUPPER") {
			t.Errorf("warning about TOUPPER, which simpserv advertises: %q", w)
		}
	}
	if sr := rep.Services["TOUPPER"]; sr == nil || sr.Samples != 2 || sr.MeanMS == nil || *sr.MeanMS != 2.5 {
		t.Errorf("TOUPPER: %+v, want 2 samples of mean (3+2)/2 = 2.5 ms", sr)
	}
	sc, _, err := FromFit(Files{UBBConfig: &ubbText}, rep)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(sc.Advertise, map[string][]string{"simpserv": {"TOUPPER"}}) || sc.Services["TOUPPER"].ServiceTime == nil {
		t.Fatalf("scenario: advertise %v, services %v", sc.Advertise, sc.Services)
	}
	r, err := core.Run(sc, core.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Requests.Completed == 0 || len(r.Requests.Failed) != 0 {
		t.Errorf("run: %d completed, failed %v", r.Requests.Completed, r.Requests.Failed)
	}
}
