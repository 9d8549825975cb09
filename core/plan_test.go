package core

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/tuxlb/tuxlb/core/diag"
	"github.com/tuxlb/tuxlb/core/plan"
	"github.com/tuxlb/tuxlb/core/result"
	"github.com/tuxlb/tuxlb/core/scenario"
)

// planScenario is a scenario with an unsorted CSV trace (no service times:
// they are drawn) and a generated stream, so a run depends on the seed
// through the trace's request keys, the streams and the service times.
func planScenario(t *testing.T, replications int) *scenario.Scenario {
	t.Helper()
	doc := map[string]any{
		"ubbconfig":    traceUBB,
		"replications": replications,
		"services":     map[string]any{"TOUPPER": map[string]any{"service_time": map[string]any{"dist": "exp", "mean_ms": 2}}},
		"workload": map[string]any{
			"trace_csv": "time_ms,service,origin\n5,TOUPPER,SITE1\n1,TOUPPER,SITE1\n3,TOUPPER,SITE1\n1,TOUPPER,SITE1\n",
			"generate": map[string]any{"duration_ms": 200, "streams": []any{
				map[string]any{"service": "TOUPPER", "origin": "SITE1", "arrivals": "poisson", "rate_per_s": 1500}}},
		},
	}
	data, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := ParseScenario(data)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// runBytes is a result's encoding followed by its dispatch log.
func runBytes(t *testing.T, run func(RunOptions) (*result.Result, error)) []byte {
	t.Helper()
	var log bytes.Buffer
	res, err := run(RunOptions{Dispatch: &log})
	if err != nil {
		t.Fatal(err)
	}
	return append(result.Encode(res), log.Bytes()...)
}

// A reseeded plan runs exactly as the scenario compiled with that seed: the
// trace, compiled once without a seed, is keyed by the run's seed.
func TestPlanReseedIsCompileWithSeed(t *testing.T) {
	sc := planScenario(t, 0)
	base, err := Compile(sc, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var first []byte
	for _, seed := range []uint64{1, 7, 12345} {
		fresh, err := Compile(sc, RunOptions{Seed: &seed})
		if err != nil {
			t.Fatal(err)
		}
		want := runBytes(t, fresh.Run)
		got := runBytes(t, base.Reseed(seed).Run)
		if !bytes.Equal(got, want) {
			t.Errorf("seed %d: the reseeded plan gave %d bytes, the plan compiled with the seed %d; want the same bytes", seed, len(got), len(want))
		}
		if seed == 1 {
			first = got
		} else if bytes.Equal(got, first) {
			t.Errorf("seed %d gave the bytes of seed 1, want a different run", seed)
		}
	}
	if r := base.Reseed(9); r.setup.Work != base.setup.Work || r.Seed() != 9 || base.Seed() != 1 {
		t.Errorf("Reseed(9): seed %d (base %d), shares the compiled workload: %v; want 9, 1 and true",
			r.Seed(), base.Seed(), r.setup.Work == base.setup.Work)
	}
}

// Replications run on several goroutines at once from one plan give the
// bytes of the plan run replication by replication.
func TestPlanReplicationsShareThePlan(t *testing.T) {
	sc := planScenario(t, 4)
	p, err := Compile(sc, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := result.Encode(mustRun(t, p.Run))
	results := make([]*result.Result, p.Replications())
	var wg sync.WaitGroup
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], _ = p.RunReplication(i, RunOptions{})
		}()
	}
	wg.Wait()
	for i, r := range results {
		if r == nil {
			t.Fatalf("replication %d failed", i)
		}
	}
	if got := result.Encode(result.CombineReplications(results)); !bytes.Equal(got, want) {
		t.Errorf("replications run at once:\n%s\nwant the bytes of Plan.Run:\n%s", got, want)
	}
	if got := result.Encode(mustRun(t, func(o RunOptions) (*result.Result, error) { return Run(sc, o) })); !bytes.Equal(got, want) {
		t.Errorf("Run(sc) gave other bytes than Compile(sc).Run:\n%s\nwant\n%s", got, want)
	}
}

func mustRun(t *testing.T, run func(RunOptions) (*result.Result, error)) *result.Result {
	t.Helper()
	res, err := run(RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// Compile reports the errors ParseScenario and the setup find, once.
func TestCompileErrors(t *testing.T) {
	if _, err := Compile(nil, RunOptions{}); diag.ErrorCode(err) != diag.EINVALID {
		t.Errorf("Compile(nil): got %v, want an invalid error", err)
	}
	sc := planScenario(t, 0)
	sc.Workload.TraceCSV = "time_ms,service,origin\n1,TOUPPER,SITE1\n2,NOSUCH,SITE1\n"
	_, err := Compile(sc, RunOptions{})
	if want := "trace row 2: service: "; err == nil || !bytes.HasPrefix([]byte(err.Error()), []byte(want)) {
		t.Errorf("got %v, want an error starting %q", err, want)
	}
}

// Prepare then Prepared.Compile is Compile: the same bytes, on the one
// Model the caller was handed (the estimates' and the plan's are the same
// value, read once); a bad configuration is reported under the names the
// options give its files, a bad scenario before its configuration is read.
func TestPrepareIsCompileFirstHalf(t *testing.T) {
	sc := planScenario(t, 0)
	pr, err := Prepare(sc, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := pr.Compile(RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Model() != pr.Model() {
		t.Errorf("the plan runs on another Model than the one Prepare read")
	}
	if got, want := runBytes(t, p.Run), runBytes(t, func(o RunOptions) (*result.Result, error) { return Run(sc, o) }); !bytes.Equal(got, want) {
		t.Errorf("Prepare then Compile gave %d bytes, Run %d; want the same bytes", len(got), len(want))
	}

	bad := *sc
	bad.UBBConfig = "*RESOURCES\nMODEL XX\n"
	for _, tc := range []struct {
		opt  RunOptions
		want string
	}{
		{RunOptions{}, "ubbconfig:2:7: MODEL must be SHM or MP"},
		{RunOptions{UBBName: "/etc/tuxedo/bank.ubb"}, "/etc/tuxedo/bank.ubb:2:7: MODEL must be SHM or MP"},
	} {
		_, err := Prepare(&bad, tc.opt)
		var e *diag.Error
		if !errors.As(err, &e) || len(e.Diagnostics) == 0 || !strings.HasPrefix(e.Diagnostics[0].String(), tc.want) {
			t.Errorf("Prepare(bad configuration, %+v): got %v, want a diagnostic starting %q", tc.opt, err, tc.want)
		}
	}
	bad.Replications = MaxReplications + 1 // and the configuration still bad: the scenario's own check comes first
	if _, err := Prepare(&bad, RunOptions{}); err == nil || !strings.HasPrefix(err.Error(), "replications: ") {
		t.Errorf("Prepare(bad scenario): got %v, want the replications error", err)
	}
}

// Every policy has a row in comparisonPolicies (but tuxedo), an algorithm
// name, a rule in choose and an explanation (explain's own test checks its
// sentence): each runs and explains a
// request without an error or a panic. A policy added to plan's policies table
// alone fails here.
func TestEveryPolicyIsComplete(t *testing.T) {
	for _, name := range plan.Vocabulary()["policy"] {
		p, err := plan.ParsePolicy("policy", name)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := comparisonPolicies[p]; ok == (p == plan.PolicyTuxedo) {
			t.Errorf("policy %s: row in comparisonPolicies %v, want %v", name, ok, p != plan.PolicyTuxedo)
			continue
		}
		if cp, ok := comparisonPolicies[p]; ok && cp.alg.String() == "" {
			t.Errorf("policy %s: no algorithm name", name)
			continue
		}
		sc := planScenario(t, 0)
		sc.Policy = name
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("policy %s: panic %v", name, r)
				}
			}()
			ex, err := Explain(sc, RunOptions{}, 1, 20)
			if err != nil {
				t.Errorf("policy %s: %v", name, err)
				return
			}
			for _, x := range ex {
				if x.Policy != name || x.Text == "" || x.Winner == "" {
					t.Errorf("policy %s: request %d explained as policy %q, winner %q, text %q; want the policy, a winner and a text",
						name, x.Seq, x.Policy, x.Winner, x.Text)
				}
			}
		}()
	}
}

// The failure reasons are plan.FailureCodes in order, and a client set's
// retry bit k (plan's reading of retry.on) is the failure reasonNoEnt+k.
func TestFailureCodesAreTheFailureReasons(t *testing.T) {
	if got, want := int(reasonTime-reasonNoEnt)+1, len(plan.FailureCodes); got != want || numFailures != want {
		t.Fatalf("%d failure reasons (numFailures %d), plan.FailureCodes has %d", got, numFailures, want)
	}
	for k, code := range plan.FailureCodes {
		r := reasonNoEnt + reason(k)
		if r.String() != code || !r.failed() {
			t.Errorf("reason %d: %q (failed %v), want the failure %q", r, r.String(), r.failed(), code)
		}
		cp := &plan.Client{RetryOn: 1 << k}
		for j := range plan.FailureCodes {
			if got := retries(cp, reasonNoEnt+reason(j)); got != (j == k) {
				t.Errorf("retry bit of %s: retries(%s) = %v", code, plan.FailureCodes[j], got)
			}
		}
		if retries(cp, codeTimeout) {
			t.Errorf("retry bit of %s retries TPETIME", code)
		}
	}
}
