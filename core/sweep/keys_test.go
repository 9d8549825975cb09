package sweep

import (
	"strings"
	"testing"
)

// TestKeysHelp checks the list of keys that errors give, made from the
// scenario's keys and the UBBCONFIG table's sweep parameters.
func TestKeysHelp(t *testing.T) {
	want := "rate_scale, policy, ldbal, model, tuning.*, network.latency_ms, machines.<lmid>.speed, clients.<name>.count|think_ms, streams.<service>.rate, " +
		"SERVERS.<name>[@<group>].MIN|MAX|MAXDISPATCHTHREADS, SERVICES.<name>.LOAD|PRIO, MACHINES.<lmid>.NETLOAD|MAXWSCLIENTS, GROUPS.<group>.TMSCOUNT"
	if keysHelp != want {
		t.Errorf("keysHelp:\n got %s\nwant %s", keysHelp, want)
	}
}

// TestLookupKeyTable checks the look-up against the keys it must and must
// not find, UBBCONFIG ones through the table.
func TestLookupKeyTable(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"rate_scale", "rate_scale"}, {"POLICY", "policy"}, {"LDBAL", "ldbal"}, {"model", "model"},
		{"tuning.IDLE", "tuning.idle"}, {"Network.Latency_ms", "network.latency_ms"},
		{"machines.SITE2.speed", "machines.SITE2.speed"}, {"MACHINES.SITE2.speed", "machines.SITE2.speed"},
		{"machines.SITE2.SPEED", "machines.SITE2.speed"}, {"Machines.SITE2.Speed", "machines.SITE2.speed"},
		{"SERVERS.ACCT@G1.min", "SERVERS.ACCT@G1.MIN"}, {"SERVICES.X.prio", "SERVICES.X.PRIO"},
		{"MACHINES.SITE2.netload", "MACHINES.SITE2.NETLOAD"}, {"SERVERS.ACCT.maxdispatchthreads", "SERVERS.ACCT.MAXDISPATCHTHREADS"},
		{"SERVERS.ACCT.MINDISPATCHTHREADS", ""},
		{"scanunit", ""}, {"RESOURCES.LDBAL", ""}, {"servers.ACCT.MIN", ""}, {"SERVERS.ACCT.RQADDR", ""},
		{"SERVERS..MIN", ""}, {"SERVICES.X.SVCTIMEOUT", ""}, {"tuning.boot", ""}, {"GROUPS.G.GRPNO", ""},
	} {
		k := lookupKey(c.in)
		got := ""
		if k != nil {
			got = k.name
		}
		if got != c.want {
			t.Errorf("lookupKey(%q): got %q, want %q", c.in, got, c.want)
		}
	}
	if k := lookupKey("SERVERS.A.MIN"); k == nil || k.checkValue("-1") == nil || !strings.Contains(k.checkValue("x").Error(), "not a whole number") {
		t.Errorf("SERVERS.A.MIN: want integers >= 0 only")
	}
}

// The TMS servers of a group and a machine's workstation clients are sweep
// keys: each point's UBBCONFIG carries the value, and the summary's rule is
// the fewest TMS servers, the most workstation clients, that meet.
func TestTMSCountAndMaxWSClientsKeys(t *testing.T) {
	for _, c := range []struct{ name, rule string }{
		{"GROUPS.BANKB1.TMSCOUNT", RuleSmallest},
		{"MACHINES.SITE2.MAXWSCLIENTS", RuleLargest},
	} {
		k := lookupKey(c.name)
		if k == nil || k.kind != keyInteger || k.rule != c.rule {
			t.Fatalf("%s: got %+v, want an integer key with rule %s", c.name, k, c.rule)
		}
	}
	if k := lookupKey("GROUPS.BANKB1.TMSNAME"); k != nil {
		t.Errorf("GROUPS.BANKB1.TMSNAME: got a key %+v, want none (not a sweep parameter)", k)
	}
}

// A variant that sets a key twice is refused (its name would show both
// values, its run the last); keys differ in case but for an entry's name.
func TestParseVariantKeyTwice(t *testing.T) {
	for text, twice := range map[string]bool{
		"policy=jsq,policy=p2c":                   true,
		"ldbal=N,LDBAL=Y":                         true,
		"SERVERS.srv.MIN=1,SERVERS.srv.min=2":     true,
		"SERVERS.srv.MIN=1,SERVERS.SRV.MIN=2":     false,
		"machines.A.speed=2,machines.a.speed=3":   false,
		"policy=jsq,ldbal=N":                      false,
		"streams.S.rate=1,streams.S.rate_per_s=2": true,
	} {
		_, err := ParseVariant(text)
		if got := err != nil && strings.Contains(err.Error(), "is set twice; give each key once"); got != twice {
			t.Errorf("%q: error %v, want a key set twice: %v", text, err, twice)
		}
	}
}
