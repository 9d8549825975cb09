package core_test

import (
	"errors"
	"fmt"

	"github.com/tuxlb/tuxlb/core"
	"github.com/tuxlb/tuxlb/core/diag"
	"github.com/tuxlb/tuxlb/core/result"
	"github.com/tuxlb/tuxlb/core/ubb"
)

// bankUBB is a small MP application: two machines, one server group on
// each, the BALANCE service on both.
const bankUBB = `*RESOURCES
IPCKEY 123456
MASTER SITE1
MODEL MP
LDBAL Y
*MACHINES
"host1" LMID=SITE1 APPDIR="/app" TUXCONFIG="/app/tuxconfig" TUXDIR="/opt/tuxedo"
"host2" LMID=SITE2 APPDIR="/app" TUXCONFIG="/app/tuxconfig" TUXDIR="/opt/tuxedo" NETLOAD=50
*GROUPS
BANKB1 LMID=SITE1 GRPNO=1
BANKB2 LMID=SITE2 GRPNO=2
*SERVERS
acct SRVGRP=BANKB1 SRVID=1 MIN=2 CLOPT="-A"
acct SRVGRP=BANKB2 SRVID=1 MIN=2 CLOPT="-A"
*SERVICES
BALANCE LOAD=50
`

// bankScenario is a scenario on bankUBB: BALANCE takes 2 to 6 ms
// (uniformly), and SITE1 sends 600 requests a second, one every 1/600 s, for
// one simulated second.
var bankScenario = []byte(`{
  "name": "bank",
  "ubbconfig": ` + fmt.Sprintf("%q", bankUBB) + `,
  "services": {"BALANCE": {"service_time": {"dist": "uniform", "min_ms": 2, "max_ms": 6}}},
  "seed": 7,
  "workload": {"generate": {"duration_ms": 1000, "streams": [
    {"service": "BALANCE", "origin": "SITE1", "arrivals": "constant", "rate_per_s": 600}]}}
}`)

// Read a scenario document and run it: ParseScenario checks it strictly
// (unknown fields, wrong types), Run compiles it and plays it forward.
// EncodeResult gives the bytes the CLI, the API and the page hand out.
func Example() {
	sc, err := core.ParseScenario(bankScenario)
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := core.Run(sc, core.RunOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	h := result.HeadlineOf(res)
	fmt.Printf("%s: %d issued, %d completed, response mean %.3f ms, %d sent over the network\n",
		res.Name, h.Issued, h.Completed, h.ResponseMeanMS, h.NetworkSent)
	// Output:
	// bank: 600 issued, 600 completed, response mean 3.991 ms, 194 sent over the network
}

// Compile a scenario once and run its plan with several seeds: the model,
// samplers and workload are not read again.
func ExampleCompile() {
	sc, err := core.ParseScenario(bankScenario)
	if err != nil {
		fmt.Println(err)
		return
	}
	plan, err := core.Compile(sc, core.RunOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, seed := range []uint64{7, 8} {
		res, err := plan.Reseed(seed).Run(core.RunOptions{})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("seed %d: response mean %.3f ms\n", res.Seed, res.ResponseMS.Mean)
	}
	// Output:
	// seed 7: response mean 3.991 ms
	// seed 8: response mean 4.278 ms
}

// Decode a scenario, check it and read its configuration once (Prepare),
// look at the Model before anything else is built (an estimate of the
// run's memory, say), then finish the plan and run it: what the CLI and the
// API do, so a scenario is checked once and its UBBCONFIG parsed once.
func ExamplePrepare() {
	sc, err := core.DecodeScenario(bankScenario)
	if err != nil {
		fmt.Println(err)
		return
	}
	pr, err := core.Prepare(sc, core.RunOptions{UBBName: "bank.ubb"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d machines, %d server instances\n", len(pr.Model().Machines), len(pr.Model().Servers))
	plan, err := pr.Compile(core.RunOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := plan.Run(core.RunOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("response mean %.3f ms\n", res.ResponseMS.Mean)
	// Output:
	// 2 machines, 4 server instances
	// response mean 3.991 ms
}

// Validate a UBBCONFIG as `tuxlb validate` and POST /api/v1/validate do:
// LoadModel returns the Model, or an EINVALID *Error whose diagnostics are
// positioned FILE:LINE:COL.
func ExampleLoadModel() {
	m, err := core.LoadModel(ubb.Input{UBBConfig: bankUBB, UBBName: "ubbconfig"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(m.Model, len(m.Machines), "machines,", len(m.Servers), "server instances")

	bad := bankUBB + "*SERVERS\nacct SRVGRP=NOGROUP SRVID=9\n"
	_, err = core.LoadModel(ubb.Input{UBBConfig: bad, UBBName: "bank.ubb"})
	var ce *diag.Error
	if errors.As(err, &ce) {
		for _, d := range ce.Diagnostics {
			fmt.Println(d)
		}
	}
	// Output:
	// MP 2 machines, 4 server instances
	// bank.ubb:18:13: server acct: unknown SRVGRP NOGROUP: expected a group of *GROUPS
}

// Explain why a request went where it went: every candidate the rule
// looked at, its cost, and the rule that picked the winner.
func ExampleExplain() {
	sc, err := core.ParseScenario(bankScenario)
	if err != nil {
		fmt.Println(err)
		return
	}
	ex, err := core.Explain(sc, core.RunOptions{}, 3, 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	x := ex[0]
	fmt.Println(x.Seq, x.Service, "from", x.Origin, "->", x.Winner, "by", x.Rule)
	for _, c := range x.Candidates {
		fmt.Println(" ", c.Queue, c.LMID, "idle:", c.Idle, "cost:", c.Cost, "chosen:", c.Chosen)
	}
	fmt.Println(x.Text)
	// Output:
	// 3 BALANCE from SITE1 -> BANKB1/1 by least-load
	//   BANKB1/1 SITE1 idle: false cost: 50/1 + 50 + 0 = 100 chosen: true
	//   BANKB1/2 SITE1 idle: false cost: 50/1 + 50 + 0 = 100 chosen: false
	//   BANKB2/1 SITE2 idle: true cost: 0/1 + 50 + 50 = 100 chosen: false
	//   BANKB2/2 SITE2 idle: true cost: 0/1 + 50 + 50 = 100 chosen: false
	// MP round-robin on SITE1: no local server of BALANCE is idle, so every candidate queue is costed as C/n + LOAD + NETLOAD. BANKB1/1 (local) costs 50/1 + 50 + 0 = 100; BANKB1/2 (local) costs 50/1 + 50 + 0 = 100; BANKB2/1 (SITE2) costs 0/1 + 50 + 50 = 100; BANKB2/2 (SITE2) costs 0/1 + 50 + 50 = 100; the tie goes to the first, BANKB1/1. Its counter becomes 100. All servers of queue BANKB1/1 are busy, so it waits there with 0 other request(s).
}
