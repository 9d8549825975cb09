package plan

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/tuxlb/tuxlb/core/diag"
	"github.com/tuxlb/tuxlb/core/internal/usec"
	"github.com/tuxlb/tuxlb/core/internal/vocab"
	"github.com/tuxlb/tuxlb/core/scenario"
	"github.com/tuxlb/tuxlb/core/ubb"
)

// EventKind is what a scenario event does to the instances it targets.
type EventKind uint8

// The event kinds, in the order the scenario document lists them.
const (
	EventKill     EventKind = iota // an up instance crashes: down
	EventShutdown                  // an up instance stops (after its request); a restarting one is gone
	EventBoot                      // a gone instance boots and is up tuning.boot_ms later
	EventLose                      // a machine and its BBL stop: its instances are gone without notice
	EventRestore                   // a lost machine is back: its MIN instances boot
)

var eventKinds = vocab.Table[EventKind]{What: "event", Names: []string{"kill", "shutdown", "boot", "lose", "restore"}}

// String returns the kind as the scenario's events spell it.
func (k EventKind) String() string { return eventKinds.Name(k) }

// defaultBootUS is tuning.boot_ms's default, 1000 ms.
const defaultBootUS = 1_000_000

// Event is a scenario event resolved against the model: its time in
// microseconds, its kind, and the instances it targets (indexes into
// Model.Servers, in scan order).
type Event struct {
	AtUS    int64
	Kind    EventKind
	Servers []int32
	Machine int32 // lose, restore: the machine's index
}

// action returns the event's kind and target; exactly one must be set.
func eventAction(ev *scenario.Event, field string) (EventKind, string, error) {
	var kinds []string
	var kind EventKind
	var target string
	for k, t := range [...]string{EventKill: ev.Kill, EventShutdown: ev.Shutdown, EventBoot: ev.Boot, EventLose: ev.Lose, EventRestore: ev.Restore} {
		if t != "" {
			kinds = append(kinds, EventKind(k).String())
			kind, target = EventKind(k), t
		}
	}
	switch len(kinds) {
	case 1:
		return kind, target, nil
	case 0:
		return 0, "", diag.FieldErrorf(field, "want one of kill, shutdown or boot with a target (GROUP/SRVID, group:GROUP or machine:LMID), or lose or restore with an LMID")
	}
	return 0, "", diag.FieldErrorf(field, "has %s; want exactly one of kill, shutdown, boot, lose or restore", strings.Join(kinds, " and "))
}

// CheckEventTarget checks that the configuration m has the event's target (an
// instance, a group or a machine) and that the event is well formed: the
// error compiling the scenario would give, the event named field
// (events[i]).
func CheckEventTarget(ev *scenario.Event, m *ubb.Model, field string) error {
	kind, target, err := eventAction(ev, field)
	switch {
	case err != nil:
	case kind == EventLose || kind == EventRestore:
		if m.MachineIndex(target) < 0 {
			err = diag.FieldErrorf(field+"."+kind.String(), "unknown LMID %q", target)
		}
	default:
		_, err = (&Setup{Model: m}).eventTargets(field+"."+kind.String(), target)
	}
	return err
}

// checkEvents checks what can be checked without the model: each event has
// a time (>= 0, not before the previous event's) and exactly one action.
func checkEvents(events []scenario.Event) error {
	var prev int64
	for i := range events {
		ev := &events[i]
		field := fmt.Sprintf("events[%d]", i)
		if ev.AtMS == nil {
			return diag.FieldErrorf(field+".at_ms", "missing (the time of the event, in ms)")
		}
		us, err := nonNegativeMS(field+".at_ms", *ev.AtMS)
		if err != nil {
			return err
		}
		if i > 0 && us < prev {
			return diag.FieldErrorf(field+".at_ms", "%g is before events[%d]'s %s: list events in time order", *ev.AtMS, i-1, usec.FormatMS(prev))
		}
		prev = us
		if _, _, err := eventAction(ev, field); err != nil {
			return err
		}
	}
	return nil
}

// resolveEvents turns the scenario's events into [Setup.Events] and reads
// tuning.boot_ms.
func (st *Setup) resolveEvents(sc *scenario.Scenario, _ Options) error {
	st.BootUS = defaultBootUS
	if sc.Tuning != nil && sc.Tuning.BootMS != nil {
		st.BootUS, _ = usec.FromMSValue(*sc.Tuning.BootMS)
	}
	for i := range sc.Events {
		ev := &sc.Events[i]
		kind, target, _ := eventAction(ev, "")
		field := fmt.Sprintf("events[%d].%s", i, kind)
		us, _ := usec.FromMSValue(*ev.AtMS)
		if kind == EventLose || kind == EventRestore {
			mi := st.Model.MachineIndex(target)
			if mi < 0 {
				return diag.FieldErrorf(field, "unknown LMID %q (want an LMID of *MACHINES)", target)
			}
			var servers []int32
			for k := range st.Model.Servers {
				if st.Model.Servers[k].Machine == mi {
					servers = append(servers, int32(k))
				}
			}
			st.Events = append(st.Events, Event{AtUS: us, Kind: kind, Servers: servers, Machine: int32(mi)})
			continue
		}
		servers, err := st.eventTargets(field, target)
		if err != nil {
			return err
		}
		st.Events = append(st.Events, Event{AtUS: us, Kind: kind, Servers: servers})
	}
	return nil
}

// eventTargets resolves one event's target to instances in scan order.
func (st *Setup) eventTargets(field, target string) ([]int32, error) {
	m := st.Model
	var out []int32
	// every instance that keep holds, TMS servers left out (they are never
	// the target of kill, shutdown or boot); none is a warning, not an error
	every := func(what string, keep func(*ubb.Server) bool) {
		for i := range m.Servers {
			if !m.Servers[i].TMS && keep(&m.Servers[i]) {
				out = append(out, int32(i))
			}
		}
		if len(out) == 0 {
			st.Warnings = append(st.Warnings, fmt.Sprintf("%s: %s has no server instances: the event changes nothing", field, what))
		}
	}
	switch {
	case strings.HasPrefix(target, "group:"):
		g := strings.TrimPrefix(target, "group:")
		if !hasGroup(m, g) {
			return nil, diag.FieldErrorf(field, "unknown group %q (want a group of *GROUPS)", g)
		}
		every("group "+g, func(s *ubb.Server) bool { return s.Group == g })
	case strings.HasPrefix(target, "machine:"):
		lmid := strings.TrimPrefix(target, "machine:")
		mi := m.MachineIndex(lmid)
		if mi < 0 {
			return nil, diag.FieldErrorf(field, "unknown LMID %q (want an LMID of *MACHINES)", lmid)
		}
		every("machine "+lmid, func(s *ubb.Server) bool { return s.Machine == mi })
	case strings.Contains(target, "/"):
		for i := range m.Servers {
			if m.Servers[i].ID == target {
				if m.Servers[i].TMS {
					return nil, diag.FieldErrorf(field, "%s is a TMS server: TMS servers are not targets of kill, shutdown or boot", target)
				}
				return []int32{int32(i)}, nil
			}
		}
		return nil, noInstanceError(m, field, target)
	default:
		return nil, diag.FieldErrorf(field, "target %q: want GROUP/SRVID, group:GROUP or machine:LMID", target)
	}
	return out, nil
}

// noInstanceError explains why GROUP/SRVID names no instance: an unknown
// group, or an SRVID outside the instances (and spares) the group has.
func noInstanceError(m *ubb.Model, field, target string) error {
	g, id, _ := strings.Cut(target, "/")
	if !hasGroup(m, g) {
		return diag.FieldErrorf(field, "no server instance %s: unknown group %q", target, g)
	}
	if _, err := strconv.Atoi(id); err != nil {
		return diag.FieldErrorf(field, "no server instance %s: SRVID %q is not a number", target, id)
	}
	var ids []int
	for i := range m.Servers {
		if m.Servers[i].Group == g && !m.Servers[i].TMS {
			ids = append(ids, m.Servers[i].SrvID)
		}
	}
	have := "no instances"
	if len(ids) > 0 {
		have = "instances (spares included) with SRVIDs " + idRanges(ids)
	}
	return diag.FieldErrorf(field, "no server instance %s: group %s has %s, and MAX bounds the spares", target, g, have)
}

// idRanges writes SRVIDs compactly: "1-3,7,10-12".
func idRanges(ids []int) string {
	slices.Sort(ids)
	var parts []string
	for k := 0; k < len(ids); {
		j := k
		for j+1 < len(ids) && ids[j+1] == ids[j]+1 {
			j++
		}
		if j > k {
			parts = append(parts, strconv.Itoa(ids[k])+"-"+strconv.Itoa(ids[j]))
		} else {
			parts = append(parts, strconv.Itoa(ids[k]))
		}
		k = j + 1
	}
	return strings.Join(parts, ",")
}

func hasGroup(m *ubb.Model, name string) bool {
	for i := range m.Groups {
		if m.Groups[i].Name == name {
			return true
		}
	}
	return false
}
