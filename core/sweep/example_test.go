package sweep_test

import (
	"fmt"

	"github.com/tuxlb/tuxlb/core"
	"github.com/tuxlb/tuxlb/core/sweep"
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

// Compare variants of a scenario on the identical request stream: each
// variant is a named change (a scenario field, a UBBCONFIG parameter, the
// policy), and the comparison gives each one's headline and its difference
// from the first.
func ExampleCompare() {
	sc, err := core.ParseScenario(bankScenario)
	if err != nil {
		fmt.Println(err)
		return
	}
	var variants []sweep.Variant
	for _, text := range []string{"ldbal=Y", "ldbal=N", "policy=round_robin"} {
		v, err := sweep.ParseVariant(text)
		if err != nil {
			fmt.Println(err)
			return
		}
		variants = append(variants, v)
	}
	cmp, _, err := sweep.Compare(sc, variants, core.RunOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, v := range cmp.Variants {
		fmt.Printf("%-20s response mean %.3f ms, sent over the network %d\n", v.Name, v.Headline.ResponseMeanMS, v.Headline.NetworkSent)
	}
	// Output:
	// ldbal=Y              response mean 3.991 ms, sent over the network 194
	// ldbal=N              response mean 667.975 ms, sent over the network 0
	// policy=round_robin   response mean 3.910 ms, sent over the network 300
}

// Sweep a scenario over a grid of values: here the arrival rate, from half
// to one and a half times the scenario's, with 3 replications per point.
// Each point's scenario is compiled once; its replications reseed it.
func ExampleCompile() {
	sc, err := core.ParseScenario(bankScenario)
	if err != nil {
		fmt.Println(err)
		return
	}
	sw, err := sweep.Compile(sc, sweep.Spec{Vary: []string{"rate_scale=0.5..1.5/0.5"}, Replications: 3})
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := sw.Run(core.RunOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, pt := range res.Points {
		r := pt.Figures["response_mean_ms"]
		fmt.Printf("rate_scale=%v: response mean %.3f ± %.3f ms\n", pt.Values["rate_scale"], r.Mean, r.HalfWidth)
	}
	// Output:
	// rate_scale=0.5: response mean 3.980 ± 0.243 ms
	// rate_scale=1: response mean 4.158 ± 0.372 ms
	// rate_scale=1.5: response mean 72.545 ± 21.302 ms
}
