package core

import (
	"github.com/tuxlb/tuxlb/core/plan"

	"github.com/tuxlb/tuxlb/core/internal/life"
)

// Lost machines (docs/engine.md, "A lost machine"): a `lose` event stops a
// machine and its BBL at once. Its instances are gone without notice, what
// waited or ran there never replies, its clients and streams issue nothing;
// the other machines keep choosing its instances until the DBBL notices at
// its next BBLQUERY scan. `restore` boots its MIN instances again.

// lostAt reports whether machine m is lost now.
func (e *engine) lostAt(m int32) bool {
	L := e.life
	return L != nil && L.nlost > 0 && L.lost[m]
}

// candidateAt reports whether instance i is a candidate: up, down or
// restarting, or gone with its lost machine before the DBBL noticed.
func (e *engine) candidateAt(i int32) bool {
	if e.servers[i].state.candidate() {
		return true
	}
	L := e.life
	return L != nil && L.listed != nil && L.listed[i]
}

// loseMachine is a `lose` event at t.
func (e *engine) loseMachine(ev *plan.Event, t int64) {
	L := e.life
	m := ev.Machine
	if L.lost[m] {
		return
	}
	L.lost[m] = true
	L.nlost++
	L.lostGen[m]++
	L.machineChanges = append(L.machineChanges, machineChange{t: t, machine: m, what: "lost"})
	for _, i := range ev.Servers {
		sv := &e.servers[i]
		L.listed[i] = sv.state.candidate()
		if e.q != nil && e.q.fwOf[i] >= 0 {
			e.fwdCrash(i, t) // a forwarder lost with its machine: as if killed
		}
		if sv.mt != nil {
			e.mtLose(sv, t)
		}
		if sv.busy {
			e.accrueBusy(sv, t)
			if e.app != nil {
				e.crashHold(i, sv.cur, t)
			}
			sv.busy = false
			e.queues[sv.queue].inService--
			e.loseRequest(sv.cur, t)
		}
		if h := sv.held; h >= 0 { // crashed, not yet noticed: its request goes with it
			sv.held = -1
			e.queues[sv.queue].inService--
			e.loseRequest(h, t)
		}
		sv.gen++ // no notice, restart, come-up or abort of it applies any more
		if sv.state != stateGone {
			e.setState(i, stateGone, life.Lose, t)
		}
	}
	for qi := range e.queues {
		if q := &e.queues[qi]; q.machine == m && q.wait.n > 0 {
			e.drainQueue(int32(qi), t, e.loseRequest)
		}
	}
	L.dirty = true
	if at := life.ScanAtOrAfter(t, L.bblQueryUS); at <= MaxTimeUS {
		e.pushLife(life.Item{T: at, Srv: m, Gen: L.lostGen[m], Kind: life.ItemDBBL})
	}
	if e.app != nil {
		e.app.loseClients(m)
	}
}

// dbblNotice is the DBBL finding machine m lost at t: its instances are no
// longer candidates.
func (e *engine) dbblNotice(m int32, t int64) {
	L := e.life
	for i := range e.servers {
		if e.servers[i].machine == m {
			L.listed[i] = false
		}
	}
	L.dirty = true
	L.machineChanges = append(L.machineChanges, machineChange{t: t, machine: m, what: "noticed"})
}

// restoreMachine is a `restore` event at t: the machine is back, its MIN
// instances boot, its clients start again (thinking first).
func (e *engine) restoreMachine(ev *plan.Event, t int64) {
	L := e.life
	m := ev.Machine
	if !L.lost[m] {
		return
	}
	L.lost[m] = false
	L.nlost--
	L.lostGen[m]++ // a notice still to come no longer applies
	L.machineChanges = append(L.machineChanges, machineChange{t: t, machine: m, what: "restored"})
	for _, i := range ev.Servers {
		L.listed[i] = false
		if !e.m.Servers[i].Spare && e.servers[i].state == stateGone {
			e.boot(i, life.Restore, t)
		}
	}
	L.dirty = true
	if e.app != nil {
		e.app.restoreClients(e, m, t)
	}
}

// loseRequest is request s lost with its machine at t: it fails with
// TPESVCERR and no reply ever comes (its caller sees TPETIME at its
// deadline).
func (e *engine) loseRequest(s int32, t int64) {
	f := e.pool.At(s)
	f.reason, f.replyUS, f.noReply = reasonSvcErr, t, true
	e.st.fail(f)
	e.ser.fail(f.reason)
	if e.app != nil {
		e.app.slots[s].holding = false
		e.loseForwarders(s)
	}
	e.finish(s)
}
