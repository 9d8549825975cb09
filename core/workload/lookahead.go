package workload

import (
	"math"
	"sync"
)

// LookAheadRequests is how many requests Run reads before the simulation
// starts, to learn when the workload ends.
const LookAheadRequests = 16384

const lookAheadRequests = LookAheadRequests

// lookAheadCap is the look-ahead buffer's capacity for a workload of about
// total requests: total + 4·√total + 16, at most lookAheadRequests.
func lookAheadCap(total int64) int {
	if total >= lookAheadRequests {
		return lookAheadRequests
	}
	total = max(total, 0)
	return int(min(total+4*int64(math.Sqrt(float64(total)))+16, lookAheadRequests))
}

// lookBufs holds look-ahead buffers that runs have replayed, for later runs
// to reuse. A buffer of a large run is about 1.7 MB: allocating one per run
// made a sweep of short runs fault fresh pages in, under a lock the kernel
// holds per process, as fast as both its workers could, and fed the garbage
// collector. What a buffer holds is overwritten before it is read.
var lookBufs sync.Pool // of *[]request

// takeLookBuf returns an empty buffer for at least n requests.
func takeLookBuf(n int) []Request {
	if p, ok := lookBufs.Get().(*[]Request); ok && cap(*p) >= n {
		return (*p)[:0]
	}
	return make([]Request, 0, n)
}

// giveLookBuf hands a replayed buffer back for reuse.
func giveLookBuf(b []Request) {
	if cap(b) > 0 {
		lookBufs.Put(&b)
	}
}

// LookAhead reads up to lookAheadRequests requests, for Next to replay
// before the rest, and returns the workload's horizon: the last issue time
// when the workload ended within the look-ahead, else an estimate from the
// generation duration and the rate seen so far.
func (mg *Merger) LookAhead(genUS int64) int64 {
	// mg.look stays empty meanwhile: Next reads the sources. The buffer is
	// sized once, for the expected number of requests with room for a
	// random count a few standard deviations above it, rather than grown by
	// doubling: a small run (a sweep's, the playground's) would otherwise
	// copy and allocate its workload about twice over.
	buf := takeLookBuf(lookAheadCap(mg.Total()))
	var r Request
	done := false
	for len(buf) < lookAheadRequests {
		if !mg.Next(&r) {
			done = true
			break
		}
		buf = append(buf, r)
	}
	mg.look, mg.li = buf, 0
	if len(buf) == 0 {
		return genUS
	}
	last := buf[len(buf)-1].TimeUS
	if done {
		return last
	}
	horizon := genUS
	if total := mg.Total(); total > int64(len(buf)) && last > 0 {
		horizon = max(horizon, int64(float64(last)*float64(total)/float64(len(buf))))
	}
	return max(horizon, last)
}
