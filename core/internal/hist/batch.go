package hist

// Batch holds values noted for many distributions (the engine's waits of
// a model of thousands of queues) and counts them in batches, each
// distribution's values together and in the order they came: counted one at
// a time, each value would read its distribution's state, a few lines among
// megabytes of them, out of memory. What is counted is the same either way;
// the distributions must not be read while values wait in the batch (Flush
// first).
type Batch struct {
	accs          []Acc
	notes, sorted []note // notes[:n] are the values noted
	n             int
	at            []int32 // per distribution: where its notes go in sorted
}

// note is a value v noted for distribution i, as i<<noteBits | v: a value
// is at most MaxUS, below 1<<noteBits, and a batch is for fewer than
// 1<<(63-noteBits) distributions.
type note uint64

const noteBits = 40

// batchLen is how many values a batch holds before it counts them: 32 768
// notes of 8 bytes, two 256 KB buffers, so that a distribution of a
// thousand takes about 32 values at a time.
const batchLen = 1 << 15

// BatchFor returns an empty batch for distributions accs, or nil for
// fewer than BatchMin, whose states stay in the caches (a nil batch is
// empty).
func BatchFor(accs []Acc) *Batch {
	if len(accs) < BatchMin {
		return nil
	}
	return &Batch{accs: accs, notes: make([]note, batchLen), sorted: make([]note, batchLen), at: make([]int32, len(accs)+1)}
}

// BatchMin is the fewest distributions BatchFor makes a batch for: a
// thousand queues' waits take about 300 KB of states and lists.
const BatchMin = 1024

// Note notes v (0..MaxUS) for distribution i, counting the batch first
// when it is full.
func (b *Batch) Note(i int32, v int64) {
	if b.n == len(b.notes) {
		b.Flush()
	}
	b.notes[b.n] = note(i)<<noteBits | note(v)
	b.n++
}

// Flush counts the values noted in their distributions: sorted by
// distribution, keeping their order (a counting sort), then each counted as
// Note and Spill count it.
func (b *Batch) Flush() {
	if b == nil || b.n == 0 {
		return
	}
	notes := b.notes[:b.n]
	at := b.at
	clear(at)
	for _, n := range notes {
		at[n>>noteBits+1]++
	}
	for i := 1; i < len(at); i++ {
		at[i] += at[i-1]
	}
	sorted := b.sorted[:len(notes)]
	for _, n := range notes {
		sorted[at[n>>noteBits]] = n
		at[n>>noteBits]++
	}
	for _, n := range sorted {
		v := int64(n & (1<<noteBits - 1))
		if a := &b.accs[n>>noteBits]; !a.Note(v, Index(v)) {
			a.Spill(v)
		}
	}
	b.n = 0
}
