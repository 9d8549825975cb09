package starter

import (
	"encoding/json"
	"testing"

	"github.com/tuxlb/tuxlb/core"
	"github.com/tuxlb/tuxlb/core/diag"
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
