package core

// lookAheadRequests is how many requests Run reads before the simulation
// starts, to learn when the workload ends.
const lookAheadRequests = 16384

// lookAhead reads up to lookAheadRequests requests of reqs and returns a
// Requests that yields them again followed by the rest, and the workload's
// horizon: the last issue time when the workload ended within the look-ahead,
// else an estimate from the generation duration and the rate seen so far.
func lookAhead(reqs requestStream, genUS int64) (requestStream, int64) {
	b := &bufferedRequests{inner: reqs}
	var r request
	for len(b.buf) < lookAheadRequests {
		if !reqs.Next(&r) {
			b.done = true
			break
		}
		b.buf = append(b.buf, r)
	}
	if len(b.buf) == 0 {
		return b, genUS
	}
	last := b.buf[len(b.buf)-1].TimeUS
	if b.done {
		return b, last
	}
	horizon := genUS
	if total := reqs.Total(); total > int64(len(b.buf)) && last > 0 {
		horizon = max(horizon, int64(float64(last)*float64(total)/float64(len(b.buf))))
	}
	return b, max(horizon, last)
}

// bufferedRequests replays buf, then continues with inner.
type bufferedRequests struct {
	inner requestStream
	buf   []request
	i     int
	done  bool // inner is exhausted
}

func (b *bufferedRequests) Next(r *request) bool {
	if b.i < len(b.buf) {
		*r = b.buf[b.i]
		b.i++
		if b.i == len(b.buf) {
			b.buf, b.i = nil, 0 // let the look-ahead go
		}
		return true
	}
	if b.done {
		return false
	}
	return b.inner.Next(r)
}

func (b *bufferedRequests) Err() error   { return b.inner.Err() }
func (b *bufferedRequests) Total() int64 { return b.inner.Total() }
