// Package bitset finds the first server of a service's candidates that is
// idle: the smallest bit set in two sets of bits, 64 servers to a word,
// through summaries of the words that have a bit when the sets are large
// (FirstCommon, FirstCommonSum, Summarise). The engine's SHM and MP rules
// take their first idle candidate from it.
package bitset

import "math/bits"

// FirstCommon returns the smallest i whose bit is set in both cands and
// idle (bit i of word i/64), or -1; idle has at least len(cands) words.
// With cands a service's candidates (core's svcInfo.candBits, or localBits
// on one machine) and idle the engine's idleBits, it is the first idle
// candidate in scan order. FirstCommonSum takes summaries of the two as
// well (bit w of word w/64: word w is not zero), so only the words where
// both have a bit are matched: the first such word usually holds the
// answer, so a search costs about the same for 16 servers (one word, one
// summary word) as for thousands, where the busy servers at the front of
// the scan order would otherwise be passed over 64 at a time.
//
// Below SummaryWords words of servers there are no summaries (nil): the
// words are matched one by one, as cheaply as the summaries would be
// kept up to date.
func FirstCommon(cands, idle []uint64) int32 {
	for w, x := range cands {
		if x &= idle[w]; x != 0 {
			return int32(w*64 + bits.TrailingZeros64(x))
		}
	}
	return -1
}

// FirstCommonOf is FirstCommon through the summaries candSum and idleSum
// when the model has them (candSum not nil), else word by word.
func FirstCommonOf(cands, candSum, idle, idleSum []uint64) int32 {
	if candSum != nil {
		return FirstCommonSum(cands, candSum, idle, idleSum)
	}
	return FirstCommon(cands, idle)
}

// FirstCommonSum is FirstCommon through the summaries candSum and idleSum.
// core's choose calls it when the model has them, and FirstCommon
// (inlined) otherwise.
//
//go:noinline
func FirstCommonSum(cands, candSum, idle, idleSum []uint64) int32 {
	for j, s := range candSum {
		for m := s & idleSum[j]; m != 0; m &= m - 1 {
			w := j*64 + bits.TrailingZeros64(m)
			if x := cands[w] & idle[w]; x != 0 {
				return int32(w*64 + bits.TrailingZeros64(x))
			}
		}
	}
	return -1
}

// SummaryWords is the fewest words of idle bits (64 servers each) for which
// the engine keeps summaries: below, matching the words one by one costs
// less than keeping them (measured with cachegrind on the standard MP
// scenario, docs/benchmarks.md).
const SummaryWords = 8

// Summarise sets sum (len(words)/64 words, rounded up) to the summary of
// words: bit w of word w/64 set when words[w] is not zero.
func Summarise(sum, words []uint64) {
	clear(sum)
	for w, x := range words {
		if x != 0 {
			sum[w>>6] |= 1 << (w & 63)
		}
	}
}
