// Package wsconnect connects workstation clients to their WSL's handlers
// as a run starts (docs/engine.md, "The workstation front end"): which
// handlers start, how many clients each holds, and which clients find no
// room. It is the rule alone, from the Model and the client sets; the
// engine plays the connected clients.
package wsconnect

import (
	"github.com/tuxlb/tuxlb/core/plan"
	"github.com/tuxlb/tuxlb/core/ubb"
)

// WSL is one WSL's connections as the run starts.
type WSL struct {
	Clients      []int // per started handler, in number order: the clients it holds
	NotConnected int
}

// Connections are the workstation clients' connections at t = 0.
type Connections struct {
	WSL []WSL // per Model.Workstations
	// NotConnected[k] counts client set k's clients that found no room;
	// Off[g] is set for global client g when it is not connected.
	NotConnected []int
	Off          []bool
}

// Connect connects the clients of every set with via (nclient clients in
// all), at t = 0, sets in listed order, clients in number order: a client
// goes to the started handler with the fewest clients among those holding
// fewer than MPX (ties to the lowest number); when every started handler
// holds MPX and fewer than MaxHandlers are started, the next handler
// starts and takes it; otherwise, or when its machine already has
// MAXWSCLIENTS workstation clients connected, or via did not name the
// WSL's first instance, it is not connected.
func Connect(m *ubb.Model, sets []plan.Client, nclient int) Connections {
	c := Connections{WSL: make([]WSL, len(m.Workstations)), NotConnected: make([]int, len(sets)), Off: make([]bool, nclient)}
	for k := range m.Workstations {
		c.WSL[k].Clients = make([]int, m.Workstations[k].MinHandlers)
	}
	onMachine := make([]int, len(m.Machines))
	for k := range sets {
		cp := &sets[k]
		if cp.Via == nil {
			continue
		}
		wi := 0
		for wi < len(m.Workstations)-1 && m.Workstations[wi].ID != cp.Via.ID {
			wi++
		}
		ws, st := &m.Workstations[wi], &c.WSL[wi]
		for i := 0; i < cp.Count; i++ {
			ok := cp.ViaFirst && onMachine[ws.Machine] < m.Machines[ws.Machine].MaxWSClients
			if ok {
				h := -1
				for j, n := range st.Clients {
					if n < ws.MPX && (h < 0 || n < st.Clients[h]) {
						h = j
					}
				}
				switch {
				case h >= 0:
					st.Clients[h]++
				case len(st.Clients) < ws.MaxHandlers:
					st.Clients = append(st.Clients, 1)
				default:
					ok = false
				}
			}
			if !ok {
				st.NotConnected++
				c.NotConnected[k]++
				c.Off[cp.First+i] = true
				continue
			}
			onMachine[ws.Machine]++
		}
	}
	return c
}
