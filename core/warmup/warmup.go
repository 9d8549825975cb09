// Package warmup finds a run's warm-up from its own output: MSER-5
// (White 1997; White, Cobb and Spratt 2000) on the response times of a
// first pass, read from its dispatch log (docs/engine.md, "Warm-up found (MSER-5)").
// core runs the first pass with a [Collector] as its dispatch log and the
// real run with the warm-up it found ([Collector.WarmupUS]).
package warmup

import (
	"bytes"
	"strconv"
)

// Batch is MSER-5's batch: the response series is read in means of 5.
const Batch = 5

// Collector reads the dispatch log of a first pass (rows in issue order)
// and keeps, per batch of Batch requests that got a reply, the mean
// response time and the issue time of the batch's first request. It is an
// io.Writer: the log comes in chunks of whole rows.
type Collector struct {
	partial []byte // a row cut by a chunk's end (never, with whole-row chunks)
	header  bool
	sum     float64
	n       int
	first   int64
	means   []float64
	starts  []int64 // issue time of each batch's first request, µs
}

func (c *Collector) Write(p []byte) (int, error) {
	data := p
	if len(c.partial) > 0 {
		data = append(c.partial, p...)
		c.partial = nil
	}
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			c.partial = append([]byte(nil), data...)
			break
		}
		c.row(data[:i])
		data = data[i+1:]
	}
	return len(p), nil
}

// row reads issue_us (column 4) and reply_us (column 10) of one row; a
// failed request (no reply) is not in the series. Quoted cells hold no
// digits-only fields before issue_us, but a name may hold a comma: fields
// are split with quotes respected.
func (c *Collector) row(line []byte) {
	if !c.header {
		c.header = true
		return
	}
	var field [11][]byte
	k, start, quoted := 0, 0, false
	for i := 0; i <= len(line) && k < len(field); i++ {
		if i < len(line) && line[i] == '"' {
			quoted = !quoted
			continue
		}
		if i == len(line) || line[i] == ',' && !quoted {
			field[k] = line[start:i]
			k++
			start = i + 1
		}
	}
	if k < 10 {
		return
	}
	issue, err1 := strconv.ParseInt(string(field[3]), 10, 64)
	reply, err2 := strconv.ParseInt(string(field[9]), 10, 64)
	if err1 != nil || err2 != nil {
		return
	}
	if c.n == 0 {
		c.first = issue
	}
	c.sum += float64(reply - issue)
	if c.n++; c.n == Batch {
		c.means = append(c.means, c.sum/Batch)
		c.starts = append(c.starts, c.first)
		c.sum, c.n = 0, 0
	}
}

// WarmupUS is the warm-up MSER-5 finds in what c read: the issue time of
// the first request of the first batch kept, 0 when nothing is truncated.
func (c *Collector) WarmupUS() int64 {
	d := Truncation(c.means)
	if d == 0 {
		return 0
	}
	return c.starts[d]
}

// Truncation is MSER-5 on batch means z[0..m-1]: the d in 0..m/2 that
// minimises MSER(d) = Σ_{j≥d} (z[j] − z̄_d)² / (m − d)², z̄_d the mean of
// z[d:] (the first such d at equal values). The batches before d are the
// transient.
func Truncation(z []float64) int {
	m := len(z)
	if m < 2 {
		return 0
	}
	// Suffix sums from the end, so each d costs O(1).
	best, bestD := 0.0, 0
	var s, s2 float64
	stat := make([]float64, m)
	for j := m - 1; j >= 0; j-- {
		s += z[j]
		s2 += z[j] * z[j]
		n := float64(m - j)
		ss := s2 - s*s/n // Σ (z − z̄)²
		if ss < 0 {
			ss = 0
		}
		stat[j] = ss / (n * n)
	}
	for d := 0; d <= m/2; d++ {
		if d == 0 || stat[d] < best {
			best, bestD = stat[d], d
		}
	}
	return bestD
}
