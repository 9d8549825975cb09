package ubb

// Dispatch threads of a *SERVERS entry (docs/config.md, "Dispatch
// threads"): MAXDISPATCHTHREADS=k (1..999, default 1) threads per instance,
// each running one request at a time, and MINDISPATCHTHREADS=j (0..k,
// default 0), which the simulation reports and does not otherwise use.
const (
	maxDispatchThreads = 999
)

// DispatchThreads returns k, the instance's dispatch threads: its entry's
// MAXDISPATCHTHREADS, 1 when the entry does not give it (Threads is 0) and
// for a GWTDOMAIN instance.
func (s *Server) DispatchThreads() int {
	if s.Threads > 1 {
		return s.Threads
	}
	return 1
}

// threadsAll reads MAXDISPATCHTHREADS and MINDISPATCHTHREADS of every
// *SERVERS entry and gives its instances the result. It runs after
// advertiseAll, which marks the GWTDOMAIN instances: on a gateway both are
// ignored with a warning (a gateway forwards one request at a time).
func (b *builder) threadsAll() {
	for _, se := range b.entries {
		k, j, ok := b.dispatchThreads(se.e)
		if !ok || se.count == 0 {
			continue
		}
		if b.m.Servers[se.first].Gateway {
			p, _ := se.e.get("MAXDISPATCHTHREADS")
			if p.key == "" {
				p, _ = se.e.get("MINDISPATCHTHREADS")
			}
			b.warnf(p.keyPos, "server %s is a GWTDOMAIN: %s is ignored (a gateway forwards one request at a time)", se.e.name, p.key)
			continue
		}
		for i := se.first; i < se.first+se.count; i++ {
			b.m.Servers[i].Threads, b.m.Servers[i].MinThreads = k, j
		}
	}
}

// dispatchThreads reads one entry's MAXDISPATCHTHREADS (k) and
// MINDISPATCHTHREADS (j); ok says whether either was given. j > k is an
// error at MINDISPATCHTHREADS's value naming both.
func (b *builder) dispatchThreads(e *entry) (k, j int, ok bool) {
	k = 1
	pk, hasK := e.get("MAXDISPATCHTHREADS")
	if hasK {
		lo, hi := rangeOf("SERVERS", "MAXDISPATCHTHREADS")
		k = b.intValue(pk, lo, hi, 1)
	}
	pj, hasJ := e.get("MINDISPATCHTHREADS")
	if hasJ {
		lo, hi := rangeOf("SERVERS", "MINDISPATCHTHREADS")
		j = b.intValue(pj, lo, hi, 0)
		if j > k {
			where := "the default"
			if hasK {
				where = lineOf(pk.valPos)
			}
			b.errorf(pj.valPos, "server %s: MINDISPATCHTHREADS=%d is more than MAXDISPATCHTHREADS=%d (%s)", e.name, j, k, where)
			j = k
		}
	}
	return k, j, hasK || hasJ
}
