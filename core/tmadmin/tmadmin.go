// Package tmadmin writes a result as the tables of Tuxedo's tmadmin
// (printserver, printservice), so that a simulated run can be held against
// production's own. Only the CLI's --format psr and psc use it.
package tmadmin

import (
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"

	"github.com/tuxlb/tuxlb/core/result"
)

// PrintServer writes the result's servers as a table shaped like
// tmadmin's printserver (psr), so a simulated run can be held against
// production: program, queue, group, id, machine, requests done, load done,
// plus the simulated utilization.
func PrintServer(w io.Writer, r *result.Result) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	if r.Lifecycle != nil {
		return writeLifePrintServer(tw, r)
	}
	held := hasHeld(r)
	fmt.Fprintln(tw, "Prog Name\tQueue Name\tGrp Name\tID\tMachine\tRqDone\tLoad Done\tUtil"+heldHead(held))
	fmt.Fprintln(tw, "---------\t----------\t--------\t--\t-------\t------\t---------\t----"+heldRule(held))
	for _, s := range r.Servers {
		if !booted(r, s) {
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%d\t%.1f%%%s\n", s.Name, s.Queue, s.Group, srvID(s.ID), s.LMID,
			s.Requests, s.LoadDone, s.Utilization*100, heldCell(held, s))
	}
	return tw.Flush()
}

// hasHeld reports whether the run has calls: the servers' held time is a
// column then (the part of the busy time spent waiting for nested replies;
// tmadmin has no such column).
func hasHeld(r *result.Result) bool {
	return len(r.Servers) > 0 && r.Servers[0].HeldMS != nil
}

func heldHead(held bool) string {
	if held {
		return "\tHeld"
	}
	return ""
}

func heldRule(held bool) string {
	if held {
		return "\t----"
	}
	return ""
}

// heldCell is a server's held time and its share of its busy time.
func heldCell(held bool, s result.ServerStats) string {
	if !held || s.HeldMS == nil {
		return ""
	}
	share := 0.0
	if s.BusyMS > 0 {
		share = *s.HeldMS / s.BusyMS * 100
	}
	return fmt.Sprintf("\t%gms (%.0f%% of busy)", *s.HeldMS, share)
}

// writeLifePrintServer is psr for a run where instances change state: a
// Status column as tmadmin's verbose printserver words it (at the end of
// the run), and the utilization over the instance's up time.
func writeLifePrintServer(tw *tabwriter.Writer, r *result.Result) error {
	held := hasHeld(r)
	fmt.Fprintln(tw, "Prog Name\tQueue Name\tGrp Name\tID\tMachine\tRqDone\tLoad Done\tStatus\tUp\tUtil"+heldHead(held))
	fmt.Fprintln(tw, "---------\t----------\t--------\t--\t-------\t------\t---------\t------\t--\t----"+heldRule(held))
	for _, s := range r.Servers {
		var up, u float64
		if s.UpMS != nil && s.UpUtilization != nil {
			up, u = *s.UpMS, *s.UpUtilization
		}
		if !booted(r, s) {
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%d\t%s\t%gms\t%.1f%%%s\n", s.Name, s.Queue, s.Group, srvID(s.ID), s.LMID,
			s.Requests, s.LoadDone, tmadminStatus(s.State), up, u*100, heldCell(held, s))
	}
	return tw.Flush()
}

// booted says whether tmadmin would list the instance: it lists booted
// servers only, so a spare (an instance past MIN) is left out unless it came
// up, booted or spawned, during the run. Without a life cycle no spare can.
func booted(r *result.Result, s result.ServerStats) bool {
	if !s.Spare {
		return true
	}
	if r.Lifecycle == nil {
		return false
	}
	return !(s.UpMS == nil || *s.UpMS == 0) || s.State != "gone"
}

// tmadminStatus words a life-cycle state as tmadmin's printserver does. A
// down instance is one the BBL has not noticed yet: tmadmin still calls it
// ACTIVE, so the table says so, marked.
func tmadminStatus(state string) string {
	switch state {
	case "up":
		return "ACTIVE"
	case "down":
		return "ACTIVE (crashed, not yet noticed)"
	case "restarting":
		return "RESTARTING"
	case "stopping":
		return "SHUTDOWN (in progress)"
	case "booting":
		return "BOOTING"
	case "gone":
		return "INACTIVE"
	}
	return state
}

// PrintService writes one row per advertised service per server, like
// tmadmin's printservice (psc): service, routine, program, group, id,
// machine, requests done, status.
func PrintService(w io.Writer, r *result.Result) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "Service Name\tRoutine Name\tProg Name\tGrp Name\tID\tMachine\t# Done\tStatus")
	fmt.Fprintln(tw, "------------\t------------\t---------\t--------\t--\t-------\t------\t------")
	for _, s := range r.Servers {
		if !booted(r, s) {
			continue
		}
		for _, svc := range s.Services {
			var done int64
			for _, d := range s.Done {
				if d.Service == svc {
					done = d.Requests
				}
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%d\tAVAIL\n", svc, svc, s.Name, s.Group, srvID(s.ID), s.LMID, done)
		}
	}
	return tw.Flush()
}

// srvID returns the SRVID part of "GROUP/SRVID".
func srvID(id string) string {
	for i := len(id) - 1; i >= 0; i-- {
		if id[i] == '/' {
			if _, err := strconv.Atoi(id[i+1:]); err == nil {
				return id[i+1:]
			}
			break
		}
	}
	return id
}
