package wsconnect

import (
	"slices"
	"testing"

	"github.com/tuxlb/tuxlb/core/plan"
	"github.com/tuxlb/tuxlb/core/ubb"
)

// TestConnect: one WSL on SITE1 (MAXWSCLIENTS 6) with 1 handler at the
// start, at most 2, each holding MPX = 2. Set A (3 clients, through the
// WSL's first instance): the first two fill handler 1, the third starts
// handler 2. Set B (3 clients, clients 3..5): the first takes handler 2's
// free place, the next two find every handler full and none left to
// start. Set C (2 clients, via a later instance of the entry) is never
// connected. Set D has no via and is not looked at.
func TestConnect(t *testing.T) {
	ws := &ubb.Workstation{ID: "WG/1", Machine: 0, MinHandlers: 1, MaxHandlers: 2, MPX: 2}
	m := &ubb.Model{Machines: []ubb.Machine{{LMID: "SITE1", MaxWSClients: 6}}, Workstations: []ubb.Workstation{*ws}}
	sets := []plan.Client{
		{Count: 3, First: 0, Via: ws, ViaFirst: true},
		{Count: 3, First: 3, Via: ws, ViaFirst: true},
		{Count: 2, First: 6, Via: ws},
		{Count: 1, First: 8},
	}
	c := Connect(m, sets, 9)
	if got := c.WSL[0]; !slices.Equal(got.Clients, []int{2, 2}) || got.NotConnected != 4 {
		t.Errorf("WSL: %v clients per handler, %d not connected; want [2 2] and 4", got.Clients, got.NotConnected)
	}
	if !slices.Equal(c.NotConnected, []int{0, 2, 2, 0}) {
		t.Errorf("not connected per set: %v, want [0 2 2 0]", c.NotConnected)
	}
	if want := []bool{false, false, false, false, true, true, true, true, false}; !slices.Equal(c.Off, want) {
		t.Errorf("off: %v, want %v", c.Off, want)
	}
	// MAXWSCLIENTS 3 on the machine: set A takes all three places, set B none.
	m.Machines[0].MaxWSClients = 3
	c = Connect(m, sets[:2], 6)
	if got := c.WSL[0]; !slices.Equal(got.Clients, []int{2, 1}) || !slices.Equal(c.NotConnected, []int{0, 3}) {
		t.Errorf("MAXWSCLIENTS 3: %v per handler, %v not connected per set; want [2 1] and [0 3]", got.Clients, c.NotConnected)
	}
}
