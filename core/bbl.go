package core

import (
	"github.com/tuxlb/tuxlb/core/internal/life"
)

// The BBL's work on instances: crash notices (RESTART, MAXGEN, GRACE),
// SVCTIMEOUT aborts, instances coming up and -p spawning; and the -p spares'
// own idle alarms (decay) (docs/engine.md, "Life cycle"). lifecycle.go
// schedules it.

// live reports whether a BBL work item still applies: the crash is not yet
// noticed, the request is still in service, the restart or boot was not
// cancelled.
func (e *engine) live(it *life.Item) bool {
	if it.Kind == life.ItemDBBL { // srv is a machine
		return e.life.lost[it.Srv] && e.life.lostGen[it.Srv] == it.Gen
	}
	sv := &e.servers[it.Srv]
	switch it.Kind {
	case life.ItemNotice:
		return sv.state == stateDown && sv.gen == it.Gen
	case life.ItemAbort:
		if sv.mt != nil {
			return (sv.state == stateUp || sv.state == stateStopping) && e.mtInService(sv, it.Seq)
		}
		return (sv.state == stateUp || sv.state == stateStopping) && sv.busy && e.pool.At(sv.cur).req.Seq == it.Seq
	case life.ItemUp:
		return sv.gen == it.Gen && (sv.state == stateRestarting || sv.state == stateBooting)
	case life.ItemDecay: // still idle since the alarm was set
		if sv.mt != nil {
			return sv.gen == it.Gen && sv.state == stateUp && sv.mt.Free == sv.mt.K && sv.mt.LastFree() == it.Seq
		}
		return sv.gen == it.Gen && sv.state == stateUp && !sv.busy && sv.idleSince == it.Seq
	}
	panic("core: live: unknown BBL work item")
}

// noticeOrAbort runs one notice or abort item, if it still applies.
func (e *engine) noticeOrAbort(it *life.Item, t int64) {
	if !e.live(it) {
		return
	}
	switch it.Kind {
	case life.ItemNotice:
		e.notice(it.Srv, t)
	case life.ItemAbort:
		e.abort(it.Srv, t)
	case life.ItemDBBL:
		e.dbblNotice(it.Srv, t)
	default:
		panic("core: noticeOrAbort: not a notice or an abort")
	}
}

// abort ends instance i's request at t because it ran past SVCTIMEOUT: the
// request fails, the instance crashes and the crash is noticed at once. A
// stopping instance is gone instead (it was stopping anyway).
func (e *engine) abort(i int32, t int64) {
	sv := &e.servers[i]
	if sv.state == stateStopping && sv.mt != nil {
		sv.gen++
		e.mtAbortStopping(sv, t)
		e.setState(i, stateGone, life.SvcTimeout, t)
		e.orphanCheck(sv.queue, t)
		return
	}
	if sv.state == stateStopping {
		s := sv.cur
		e.accrueBusy(sv, t)
		sv.busy = false
		sv.gen++
		e.queues[sv.queue].inService--
		e.failSvc(s, t) // its hand-off stays in the every-10th count
		e.setState(i, stateGone, life.SvcTimeout, t)
		e.orphanCheck(sv.queue, t)
		return
	}
	e.crash(i, life.SvcTimeout, t)
	e.notice(i, t)
}

// notice is the BBL noticing that instance i is down: its held request
// fails, and RESTART, MAXGEN and GRACE decide whether it restarts.
func (e *engine) notice(i int32, t int64) {
	sv := &e.servers[i]
	if e.q != nil && e.q.fwOf[i] >= 0 {
		e.fwdNotice(i, t)
	}
	if sv.mt != nil {
		e.mtNotice(sv, t)
	} else if s := sv.held; s >= 0 {
		sv.held = -1
		e.queues[sv.queue].inService--
		e.failSvc(s, t) // its hand-off stays in the every-10th count
	}
	if e.mayRestart(i, t) {
		e.setState(i, stateRestarting, life.Restart, t)
		e.pushLife(life.Item{T: t + e.life.bootUS, Srv: i, Gen: sv.gen, Kind: life.ItemUp})
		return
	}
	cause := life.NoRestart
	if e.m.Servers[i].Lifecycle().Restart {
		cause = life.MaxGen
	}
	e.setState(i, stateGone, cause, t)
	e.orphanCheck(sv.queue, t)
}

// mayRestart decides, for a crash of instance i noticed at t, whether the
// BBL restarts it, and updates its generation and start time as Oracle's
// MIB keeps them (TA_GENERATION, TA_TIMESTART): below MAXGEN it restarts
// as the next generation; at MAXGEN, once GRACE seconds have passed since
// its start, the generation is reset to 1 and the start to t, and it
// restarts (that restart is not counted); GRACE 0 means no limit.
func (e *engine) mayRestart(i int32, t int64) bool {
	life := e.m.Servers[i].Lifecycle()
	if !life.Restart {
		return false
	}
	L := e.life
	switch {
	case int(L.gen[i]) < life.MaxGen:
		L.gen[i]++
	case life.GraceS == 0:
	case t-L.startUS[i] >= int64(life.GraceS)*1_000_000:
		L.gen[i], L.startUS[i] = 1, t
	default:
		return false
	}
	return true
}

// comeUp brings a restarting or booting instance up at t; it takes a
// waiting request of its queue, if any.
func (e *engine) comeUp(it *life.Item, t int64) {
	i := it.Srv
	sv := &e.servers[i]
	if !e.live(it) {
		return
	}
	if sv.state == stateBooting {
		e.life.gen[i], e.life.startUS[i] = 1, t // booted from gone: generation 1, started now
	}
	e.setState(i, stateUp, life.Booted, t)
	sv.ran = true
	if e.q != nil {
		e.fwdUp(i, t)
	}
	if sv.mt != nil {
		e.mtComeUp(sv, t)
		return
	}
	e.serverNext(sv, t) // up: idle from t
}

// armTimeout schedules the SVCTIMEOUT check of request s, started on
// instance i at t: the first BBL scan at or after t + SVCTIMEOUT.
func (e *engine) armTimeout(i, s int32, t int64) {
	L := e.life
	sv := &e.servers[i]
	f := e.pool.At(s)
	if sv.group < 0 {
		return
	}
	to := L.timeouts[f.req.Service*L.ngroups+int(sv.group)]
	if to <= 0 {
		return
	}
	e.pushLife(life.Item{T: life.ScanAtOrAfter(t+to, L.scanUS), Seq: f.req.Seq, Srv: i, Gen: sv.gen, Kind: life.ItemAbort})
}

// spawnScan makes the -p spawning decisions of a BBL scan at t, entry by
// entry: a spare is booted once the measure has met or exceeded the
// high-water mark for create seconds.
func (e *engine) spawnScan(t int64) {
	for k := range e.life.sets {
		set := &e.life.sets[k]
		if e.lostAt(set.machine) {
			continue // no BBL runs there
		}
		waiting, up := e.spawnMeasure(set)
		// servopts(5): met or exceeded; with no up instance, any waiting
		// request is above
		if above := waiting >= int64(set.sp.High)*up && up > 0 || up == 0 && waiting > 0; above {
			if set.above < 0 {
				set.above = t
			}
			if t-set.above >= int64(set.sp.CreateS)*1_000_000 && e.spawnOne(set, t) {
				set.above = t
			}
		} else {
			set.above = -1
		}
	}
}

// spawnMeasure returns what -p compares for set: the requests waiting in its
// queues (with L, their summed LOAD) and those queues' up instances. An MSSQ
// set has one queue; a conversational entry without RQADDR, one per instance.
func (e *engine) spawnMeasure(set *spawnSet) (waiting, up int64) {
	for _, qi := range set.queues {
		q := &e.queues[qi]
		for _, i := range q.servers {
			if e.servers[i].state == stateUp {
				up++
			}
		}
		if set.sp.Load {
			waiting += q.work
		} else {
			waiting += int64(q.wait.n)
		}
	}
	return waiting, up
}

// spawnOne boots the lowest gone spare of set; false when there is none.
func (e *engine) spawnOne(set *spawnSet, t int64) bool {
	for _, i := range set.servers {
		if e.m.Servers[i].SrvID >= set.minSrvID && e.servers[i].state == stateGone {
			e.boot(i, life.Spawn, t)
			return true
		}
	}
	return false
}

// armDecay sets the alarm of spare i, idle from t: terminate seconds later,
// if it is still idle, it ends itself (decay). The BBL does not choose it:
// each spare of the set has its own alarm (servopts(5): the code that
// terminates idle servers uses alarm()). A spare has at most one alarm
// pending: while one is, a later idle stretch is left to it (alarmDue sets
// the next when it goes off), so a busy spare adds nothing to the heap per
// request.
func (e *engine) armDecay(i int32, t int64) {
	sv := &e.servers[i]
	if sv.alarmSet {
		return
	}
	sv.alarmSet = true
	set := &e.life.sets[e.life.setOf[i]]
	e.pushLife(life.Item{T: t + set.terminateUS, Seq: t, Srv: i, Gen: sv.gen, Kind: life.ItemDecay})
}

// alarmDue is spare it.Srv's alarm going off at t. If the spare has been
// idle since the alarm was set, it has been idle for terminate seconds: it
// ends itself (gone, cause decay) when the measure of its set is below the
// low-water mark (a set with an idle up instance has nothing waiting, so
// the test is met whenever low is at least 1; spares of a set with low 0
// have no alarm). If it worked since and is idle again, its alarm is set
// again from when it went idle. active: -p still plays (lifeStep).
func (e *engine) alarmDue(it *life.Item, t int64, active bool) {
	i := it.Srv
	sv := &e.servers[i]
	sv.alarmSet = false
	switch {
	case !active:
	case e.live(it):
		set := &e.life.sets[e.life.setOf[i]]
		if waiting, up := e.spawnMeasure(set); waiting < int64(set.sp.Low)*up {
			e.shutdown(i, life.Decay, t)
		}
	case sv.state == stateUp && sv.mt != nil:
		if sv.mt.Free == sv.mt.K {
			e.armDecay(i, sv.mt.LastFree())
		}
	case sv.state == stateUp && !sv.busy:
		e.armDecay(i, sv.idleSince)
	}
}
