package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInitPSC: a configuration whose server advertises at run time (the
// fuxedo test's, as published) starts with a stand-in service named like
// the server, and init says what would give the real ones; with a psc
// listing of the running application, init writes a scenario of its real
// services that runs, and fit resolves a log's services through it.
func TestInitPSC(t *testing.T) {
	ubbPath := "../../testdata/tuxedo-configs/fuxedo__fuxedo__install-tests__blocktime__ubbconfig.in.ubb"
	code, _, stderr := cli(t, "init", "--ubbconfig", ubbPath)
	want := "warning: no server's services are in the UBBCONFIG (every one advertises at run time): each runs one stand-in service named like it, " +
		"so that the configuration runs as it is: server server (group GROUP1) runs SERVER; give a ULOG (--ulog) or a psc listing (--psc)"
	if code != 0 || !strings.Contains(stderr, want) {
		t.Fatalf("init without a listing: exit %d, stderr %q; want 0 and %q", code, stderr, want)
	}
	dir := writeFiles(t, map[string]string{
		"psc.txt": "> psc\nService Name Routine Name Prog Name  Grp Name  ID    Machine  # Done Status\n" +
			"------------ ------------ ---------  --------  --    -------  ------ ------\n" +
			"SLEEP        SLEEP        server     GROUP1     1     tuxapp       3 AVAIL\n" +
			"ECHO         ECHO         server     GROUP1     1     tuxapp       9 AVAIL\n" +
			"ECHO         ECHO         other      GROUP1     7     tuxapp       0 AVAIL\n",
		"bad.txt": "Service Name Routine Name Prog Name  Grp Name  ID    Machine  # Done Status\nSLEEP SLEEP server GROUP1\n",
		"log.csv": "time_ms,service,service_ms\n0,ECHO,2\n500,SLEEP,40\n1000,ECHO,4\n",
	})
	out := filepath.Join(dir, "sc.json")
	code, _, stderr = cli(t, "init", "--ubbconfig", ubbPath, "--psc", filepath.Join(dir, "psc.txt"), "--out", out)
	if code != 0 || !strings.Contains(stderr, "2 streams, 2 services timed, 1 advertise entry") ||
		!strings.Contains(stderr, "warning: "+filepath.Join(dir, "psc.txt")+":6: no server other (group GROUP1, SRVID 7) of the UBBCONFIG") {
		t.Fatalf("init --psc: exit %d, stderr %q", code, stderr)
	}
	data, _ := os.ReadFile(out)
	if !strings.Contains(strings.Join(strings.Fields(string(data)), ""), `"advertise":{"server":["SLEEP","ECHO"]}`) {
		t.Errorf("init --psc: no advertise entry for server:\n%s", data)
	}
	if code, _, stderr = cli(t, "run", out); code != 0 {
		t.Errorf("run: exit %d: %s", code, stderr)
	}
	code, _, stderr = cli(t, "init", "--ubbconfig", ubbPath, "--psc", filepath.Join(dir, "bad.txt"))
	if want := "bad.txt:2: want 8 columns"; code != 1 || !strings.Contains(stderr, want) {
		t.Errorf("init with a bad listing: exit %d, stderr %q; want 1 and %q", code, stderr, want)
	}
	// fit: without the listing the log's services are unknown to the
	// configuration; with it they resolve and --out runs.
	code, _, stderr = cli(t, "fit", "--trace", filepath.Join(dir, "log.csv"), "--ubbconfig", ubbPath)
	want = "no server offers a service, so there is nothing to run: server server (group GROUP1) advertises at run time: " +
		"give a ULOG (--ulog) or a psc listing (--psc), or an `advertise` entry"
	if code != 1 || !strings.Contains(stderr, want) {
		t.Errorf("fit without a listing: exit %d, stderr %q; want 1 and %q", code, stderr, want)
	}
	code, _, stderr = cli(t, "fit", "--trace", filepath.Join(dir, "log.csv"), "--ubbconfig", ubbPath, "--psc", filepath.Join(dir, "psc.txt"), "--out", out)
	if code != 0 {
		t.Fatalf("fit --psc: exit %d, stderr %q", code, stderr)
	}
	if strings.Count(stderr, filepath.Join(dir, "psc.txt")+":6: no server other") != 1 {
		t.Errorf("fit --psc: want the listing's warning once, got %q", stderr)
	}
	if code, _, stderr = cli(t, "run", out); code != 0 {
		t.Errorf("run the fitted scenario: exit %d: %s", code, stderr)
	}
	if code, _, stderr = cli(t, "fit", "--trace", filepath.Join(dir, "log.csv"), "--psc", filepath.Join(dir, "psc.txt")); code != 2 || !strings.Contains(stderr, "--psc needs --ubbconfig") {
		t.Errorf("fit --psc without --ubbconfig: exit %d, stderr %q", code, stderr)
	}
}
