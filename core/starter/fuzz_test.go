package starter

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/tuxlb/tuxlb/core"
	"github.com/tuxlb/tuxlb/core/diag"
	"github.com/tuxlb/tuxlb/core/ulog"
)

// FuzzNew starts a scenario from any UBBCONFIG, request log and printservice
// listing: New must never panic, and what it makes must be a scenario the
// engine reads back (a starter that writes what it then refuses would leave
// an administrator with a file to fix by hand).
func FuzzNew(f *testing.F) {
	f.Add(starterUBB, "", "")
	f.Add(starterUBB, "time_ms,service,response_ms\n0,A,3\n1.5,B,4\n2,C,\n", "")
	f.Add(starterUBB, "time,svc,origin,elapsed\n2026-12-06T10:00:00.000Z,A,site1,0.004\n", "")
	f.Add(starterUBB, "", "Service Name Routine Name Prog Name  Grp Name  ID    Machine  # Done Status\n"+
		"------------ ------------ ---------  --------  --    -------  ------ ------\n"+
		"D            D            legacy     G1         3    site1         0 AVAIL\n")
	f.Fuzz(func(t *testing.T, ubb, trace, psc string) {
		files := Files{UBBConfig: &ubb, UBBName: "ubb.cfg", TraceName: "log.csv"}
		if trace != "" {
			files.Trace = &trace
		}
		if psc != "" {
			files.PSC = &psc
		}
		sc, err := New(files)
		if err != nil {
			return
		}
		data, err := json.Marshal(sc)
		if err != nil {
			t.Fatalf("the scenario made does not marshal: %v", err)
		}
		if _, err := core.ParseScenario(data); err != nil && diag.ErrorCode(err) != diag.ETOOLARGE {
			t.Fatalf("the scenario made is refused: %v\n%s", err, data)
		}
	})
}

// FuzzFitULOG fits any pair of ULOG files (the bank's client machine's and
// server machine's, under its UBBCONFIG) and plays the scenario made from
// the fit (with what the reading keeps one by one bounded or not): Fit must
// never panic, and a fit it makes must give a scenario
// that FromFit writes and the engine runs (a fit whose scenario run then
// refuses would leave an administrator with a file to fix by hand).
func FuzzFitULOG(f *testing.F) {
	read := func(p string) string {
		data, err := os.ReadFile(filepath.Join("..", "ulog", "testdata", "bank", p))
		if err != nil {
			f.Fatal(err)
		}
		return string(data)
	}
	ubb := read("ubbconfig")
	f.Add(read("node1/ULOG.120126"), read("node2/ULOG.120126"), uint8(0))
	f.Add(read("node1/ULOG.120126"), read("node2/ULOG.120126"), uint8(3))
	f.Add("100000.100.node1!bankclt.4001.1.0: TRACE:at: { tpacall(\"AUDIT\", 0x40a0e8, 0, 0x4)\n"+
		"100000.101.node1!bankclt.4001.1.0: TRACE:at: } tpacall = 0\n",
		"100000.102.node2!AUD.5004.1.1: TRACE:at: { tpservice({\"AUDIT\", 0x4, 0x41c0a8, 48, 0, -2147483648, {0, -2, -1}})\n"+
			"100000.105.node2!AUD.5004.1.1: TRACE:at: } tpservice\n", uint8(0))
	f.Add("100000.100.node1!bankclt.4001.1.0: TRACE:at: { tpcall(\"TRANSFER\", 0x40a0e8, 0, 0x7ffd5c2a90e8, 0x7ffd5c2a90e0, 0x0)\n"+
		"100000.120.node1!bankclt.4001.1.0: TRACE:at: } tpcall = -1 [tperrno TPETIME]\n",
		"100000.101.node2!XFER.5001.1.1: TRACE:at: { tpservice({\"TRANSFER\", 0x0, 0x40a0e8, 48, 0, -2147483648, {0, -2, -1}})\n"+
			"100000.102.node2!XFER.5001.1.1: TRACE:at:   { tpforward(\"DEPOSIT\", 0x40a0e8, 48, 0x0)\n"+
			"100000.103.node2!BAL.5002.1.1: TRACE:at: { tpservice({\"DEPOSIT\", 0x0, 0x41b0a8, 48, 0, -2147483648, {0, -2, -1}})\n"+
			"100000.109.node2!BAL.5002.1.1: TRACE:at: } tpservice\n", uint8(1))
	f.Fuzz(func(t *testing.T, node1, node2 string, keep uint8) {
		// keep, when above 0, bounds what the reading keeps one by one
		// (a long log's arrivals counted by minute, its spans thinned)
		rep, err := Fit(FitSources{UBBConfig: &ubb, ULOG: []ulog.File{{Name: "node1/ULOG.120126", Text: node1}, {Name: "node2/ULOG.120126", Text: node2}},
			ULOGKeep: int(keep)})
		if err != nil {
			return
		}
		sc, _, err := FromFit(Files{UBBConfig: &ubb}, rep)
		if err != nil {
			t.Fatalf("FromFit refuses the fit: %v", err)
		}
		// a short run: the property is that it runs, not how long
		if g := sc.Workload.Generate; g != nil {
			g.DurationMS = min(g.DurationMS, 2000)
		}
		if _, err := core.Run(sc, core.RunOptions{MaxRequests: 20000}); err != nil && diag.ErrorCode(err) != diag.ETOOLARGE {
			data, _ := json.Marshal(sc)
			t.Fatalf("the fitted scenario does not run: %v\n%s", err, data)
		}
	})
}
