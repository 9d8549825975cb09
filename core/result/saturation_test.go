package result

import (
	"reflect"
	"testing"
)

// TestSaturations: A serves S on m1 (util 0.96) and m2 (0.5) and m3 (0.6);
// T only on m4 (0.99), whose partner m5 serves U, not T. m1 saturates, and the
// least busy machine serving S below 0.7 is m2. m4 saturates but no other
// machine serves T: no saturation. m6 (0.95 exactly, serving S) saturates too.
func TestSaturations(t *testing.T) {
	r := &Result{
		Services: []ServiceStats{{Name: "S", Issued: 5}, {Name: "T", Issued: 1}, {Name: "U", Issued: 1}, {Name: "V"}},
		Servers: []ServerStats{
			{LMID: "m1", Services: []string{"S", "V"}}, {LMID: "m2", Services: []string{"S"}}, {LMID: "m3", Services: []string{"S"}},
			{LMID: "m4", Services: []string{"T"}}, {LMID: "m5", Services: []string{"U", "V"}},
			{LMID: "m5", Name: "GWTDOMAIN", Services: []string{"T"}}, {LMID: "m6", Services: []string{"S"}},
		},
		Machines: []MachineStats{{LMID: "m1", Utilization: 0.96}, {LMID: "m2", Utilization: 0.5}, {LMID: "m3", Utilization: 0.6},
			{LMID: "m4", Utilization: 0.99}, {LMID: "m5", Utilization: 0.1}, {LMID: "m6", Utilization: 0.95}},
	}
	want := []Saturation{
		{LMID: "m1", Utilization: 0.96, Other: "m2", OtherUtil: 0.5, Services: []string{"S"}},
		{LMID: "m6", Utilization: 0.95, Other: "m2", OtherUtil: 0.5, Services: []string{"S"}},
	}
	got := Saturations(r)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
	w := "machine m1 saturates (utilization 0.96) while m2, which serves the same services (S), is at 0.50: the balancing sends m1 more than it can take"
	if got[0].String() != w {
		t.Errorf("got %q, want %q", got[0].String(), w)
	}
	r.Requests.Issued = 8
	r.Machines[0].Sent, r.Machines[1].Sent = 1, 1
	// 2 of 8 issued requests crossed the network: 0.25.
	if h := HeadlineOf(r); h.NetworkShare != 0.25 || h.SaturatedMachines != 2 {
		t.Errorf("headline: got share %v, saturated %d; want 0.25, 2", h.NetworkShare, h.SaturatedMachines)
	}
}
