package explain

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tuxlb/tuxlb/core/internal/life"
	"github.com/tuxlb/tuxlb/core/internal/usec"
	"github.com/tuxlb/tuxlb/core/result"
)

// After is what happens to the request right after the choice.
type After uint8

// What can happen right after the choice.
const (
	Starts        After = iota // the only server of its queue takes it at once
	TakenInSet                 // a server of an MSSQ set, idle longest, takes it
	TakenByThread              // the free thread free longest takes it
	Crosses                    // it crosses the network to its queue
	NoneUp                     // no instance of its queue is up: it waits there
	Waits                      // every server of its queue is busy: it waits there
)

// Next is what the engine saw right after the choice; [Choice.Next]
// holds it and the explanation's text ends with its words.
type Next struct {
	After After
	// SinceUS: since when the taker was idle (TakenInSet) or its thread
	// free (TakenByThread); 0 is since the run began
	SinceUS int64
	// Idle: the set's idle servers, the taker one of them; Tie: another
	// was idle as long (the taker is first in scan order of those)
	Idle int
	Tie  bool
	// Thread: the taking thread, from 0; Queue: its queue's name
	Thread int32
	Queue  string
	// Crosses: the queue's machine and when the request enters the queue
	LMID     string
	EntersUS int64
	// Waiting: the requests waiting in the queue with it
	Waiting int
	// NoneUp: the queue's instances and their states
	Instances []Instance
}

// Instance is one instance of a queue and its life-cycle state.
type Instance struct{ ID, State string }

// text words n for explanation ex.
func (n *Next) text(ex *result.Explanation) string {
	switch n.After {
	case TakenByThread:
		return fmt.Sprintf("Thread %d of %s, free %s, is the free thread of queue %s free longest (ties to the first instance, then the lowest thread): it takes it and starts at once.",
			n.Thread+1, ex.Server, since(n.SinceUS), n.Queue)
	case TakenInSet:
		if n.Idle == 1 {
			return fmt.Sprintf("%s, the set's only idle server (idle %s), takes it and starts at once.", ex.Server, since(n.SinceUS))
		}
		tie := ""
		if n.Tie {
			tie = ", first in scan order of those idle as long"
		}
		return fmt.Sprintf("Of the set's %d idle servers, %s has been idle longest (%s%s), so it takes it and starts at once.", n.Idle, ex.Server, since(n.SinceUS), tie)
	case Starts:
		return fmt.Sprintf("It starts at once on %s.", ex.Server)
	case Crosses:
		return fmt.Sprintf("It crosses the network to %s and enters queue %s at %s ms.",
			n.LMID, ex.Winner, strconv.FormatFloat(usec.ToMS(n.EntersUS), 'f', -1, 64))
	case NoneUp:
		parts := make([]string, len(n.Instances))
		for k, in := range n.Instances {
			parts[k] = in.ID + " " + in.State
			if in.State == "down" {
				parts[k] += ": it crashed and the BBL has not noticed yet"
			}
		}
		return fmt.Sprintf("No instance of queue %s is up (%s), so it waits there with %d other request(s) until one comes up or the queue is orphaned.",
			ex.Winner, strings.Join(parts, ", "), n.Waiting)
	default:
		return fmt.Sprintf("All servers of queue %s are busy, so it waits there with %d other request(s).", ex.Winner, n.Waiting)
	}
}

// since says since when a server was idle or a thread free.
func since(t int64) string {
	if t > 0 {
		return "since " + usec.FormatMS(t) + " ms"
	}
	return "since the run began"
}

// Failed is why an explained request failed with TPESVCERR.
type Failed uint8

// The ways an explained request fails with TPESVCERR.
const (
	InService   Failed = iota // its server crashed, was aborted or stopped while processing it
	Orphaned                  // it arrived over the network at a queue whose instances were all gone
	QueueGone                 // it was waiting in its queue when the queue's last instance was gone
	MachineLost               // a TPNOREPLY request whose queue's machine was lost
	NoRemote                  // a gateway found no remote domain up
)

// Failure is what the engine saw of an explained request's failure; its
// Text words it.
type Failure struct {
	Failed Failed
	AtUS   int64 // when it failed
	// Queue and LMID: its queue and the queue's machine
	Queue, LMID string
	// Server: the instance processing it (InService) or the gateway that
	// took it (NoRemote, at TookUS, for remote domains RDOM)
	Server string
	TookUS int64
	RDOM   []string
	// InService: the server's crash (Crashed: its Cause at CrashUS; else it
	// stopped)
	Crashed bool
	Cause   life.Cause
	CrashUS int64
	// QueueGone: the instance whose going left the queue with none, now
	// (GoneID "" when none went at this instant), why, and its crash
	// before it (GoneCrashUS, -1 for none)
	GoneID      string
	GoneCause   life.Cause
	GoneCrashUS int64
}

// Text words f.
func (f *Failure) Text() string {
	at := usec.FormatMS(f.AtUS)
	switch f.Failed {
	case MachineLost:
		return fmt.Sprintf("its queue %s is on machine %s, which was lost: no reply ever came (its caller sees TPETIME at its deadline)", f.Queue, f.LMID)
	case NoRemote:
		return fmt.Sprintf("TPESVCERR at %s ms: when gateway %s took it at %s ms, no remote domain it is imported from (RDOM=%s) was up",
			at, f.Server, usec.FormatMS(f.TookUS), strings.Join(f.RDOM, ","))
	case Orphaned:
		return fmt.Sprintf("TPESVCERR at %s ms: it arrived over the network at queue %s, whose instances were all gone.", at, f.Queue)
	case QueueGone:
		return fmt.Sprintf("TPESVCERR at %s ms: it was waiting in queue %s when the queue's last instance was gone%s.", at, f.Queue, f.goneWhy())
	}
	switch {
	case !f.Crashed:
		return fmt.Sprintf("TPESVCERR at %s ms: %s stopped while processing it.", at, f.Server)
	case f.Cause == life.SvcTimeout:
		return fmt.Sprintf("TPESVCERR at %s ms: it was still in service on %s past the service's SVCTIMEOUT, so the BBL's scan at %s ms aborted it (and the server crashed).", at, f.Server, at)
	default:
		return fmt.Sprintf("TPESVCERR at %s ms: %s was processing it when it crashed (%s at %s ms); the BBL noticed at its sanity scan at %s ms.",
			at, f.Server, f.Cause, usec.FormatMS(f.CrashUS), at)
	}
}

// goneWhy says how the queue's last instance went: " (G1/1: RESTART=N
// after its crash at 35000 ms)".
func (f *Failure) goneWhy() string {
	switch {
	case f.GoneID == "":
		return ""
	case f.GoneCause != life.NoRestart && f.GoneCause != life.MaxGen:
		return fmt.Sprintf(" (%s: %s)", f.GoneID, f.GoneCause)
	case f.GoneCrashUS >= 0:
		return fmt.Sprintf(" (%s: not restarted, %s, after its crash at %s ms)", f.GoneID, f.GoneCause, usec.FormatMS(f.GoneCrashUS))
	default:
		return fmt.Sprintf(" (%s: not restarted, %s)", f.GoneID, f.GoneCause)
	}
}
