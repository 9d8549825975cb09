// Package threads keeps the dispatch threads of one multithreaded server
// instance (MAXDISPATCHTHREADS above 1): which request each thread holds,
// when its own work ends, since when it has been free, and its figures
// after the warm-up (busy and held time, requests completed). The rules
// that move requests between the queue and the threads (which thread
// takes the next request, what a crash or a stop does) are the engine's
// (core's mt.go); a Set only keeps the threads' books.
package threads

// Set is the dispatch threads of one instance, indexed by thread number - 1.
type Set struct {
	K, Free int32 // threads; those holding no request
	// Pick is the thread that Start gives the next request to: set by the
	// engine (the free thread it chose, the thread that just became free,
	// the thread of a come-up)
	Pick  int32
	Used  int32   // the most threads busy at once
	Cur   []int32 // the slot of the thread's request, -1 when free
	Due   []int64 // when its own work ends; -1 while it holds its request for replies
	Since []int64 // when it last became free (its last end, or the come-up)
	Held  []int32 // down: the slot it held when the instance crashed, -1
	// HoldAt: when it began holding its request for replies
	HoldAt []int64
	// figures after the warm-up: busy and held time, requests completed
	BusyUS, HeldUS, Requests []int64
	mark                     []int64 // start of its busy time not yet accounted
}

// New returns k free threads, free since 0.
func New(k int) *Set {
	m := &Set{K: int32(k), Free: int32(k), Cur: make([]int32, k), Due: make([]int64, k), Since: make([]int64, k),
		mark: make([]int64, k), Held: make([]int32, k), HoldAt: make([]int64, k),
		BusyUS: make([]int64, k), HeldUS: make([]int64, k), Requests: make([]int64, k)}
	for j := range m.Cur {
		m.Cur[j], m.Held[j], m.Due[j] = -1, -1, -1
	}
	return m
}

// LongestFree returns the free thread that has been free longest (the
// lowest on ties), -1 for none.
func (m *Set) LongestFree() int32 {
	best := int32(-1)
	for j, c := range m.Cur {
		if c < 0 && (best < 0 || m.Since[j] < m.Since[best]) {
			best = int32(j)
		}
	}
	return best
}

// LastFree is when the last of its threads became free.
func (m *Set) LastFree() int64 {
	var t int64
	for _, x := range m.Since {
		t = max(t, x)
	}
	return t
}

// Start gives thread Pick the request in slot s at t (the engine sets when
// its work ends, Due); it returns the thread.
func (m *Set) Start(s int32, t int64) int32 {
	j := m.Pick
	m.Cur[j], m.mark[j] = s, t
	m.Free--
	m.Used = max(m.Used, m.K-m.Free)
	return j
}

// DueAt returns the lowest thread whose own work ends at t, -1 for none.
func (m *Set) DueAt(t int64) int32 {
	for j, c := range m.Cur {
		if c >= 0 && m.Due[j] == t {
			return int32(j)
		}
	}
	return -1
}

// Accrue accounts thread j's busy time up to t: it returns the time since
// its last account (for the open series bin) and the part of it after the
// warm-up warmUS (for the run's figures, added to BusyUS).
func (m *Set) Accrue(j int32, t, warmUS int64) (bin, measured int64) {
	bin = t - m.mark[j]
	if t > warmUS {
		measured = t - max(m.mark[j], warmUS)
		m.BusyUS[j] += measured
	}
	m.mark[j] = t
	return bin, measured
}

// Release makes thread j free (it becomes Pick, the thread that takes the
// next request).
func (m *Set) Release(j int32) {
	m.Cur[j], m.Due[j] = -1, -1
	m.Free++
	m.Pick = j
}

// Hold marks thread j holding its request for replies from t: no work of
// its own ends.
func (m *Set) Hold(j int32, t int64) { m.Due[j], m.HoldAt[j] = -1, t }

// StopHold accounts thread j's time holding its request up to t and
// returns the part of it after the warm-up warmUS (added to HeldUS).
func (m *Set) StopHold(j int32, t, warmUS int64) int64 {
	if t <= warmUS {
		return 0
	}
	d := t - max(m.HoldAt[j], warmUS)
	m.HeldUS[j] += d
	return d
}

// ComeUp makes every thread free since t.
func (m *Set) ComeUp(t int64) {
	for j := range m.Since {
		m.Since[j] = t
	}
}
