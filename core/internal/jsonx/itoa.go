package jsonx

import (
	"encoding/binary"
	"math/bits"
	"slices"
)

// pow10 holds 10^i for i = 0..19.
var pow10 = [20]uint64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14,
	1e15, 1e16, 1e17, 1e18, 1e19}

// AppendInt appends v in decimal, as strconv.AppendInt(b, v, 10) does.
func AppendInt(b []byte, v int64) []byte {
	u := uint64(v)
	if v < 0 {
		u = -u
	}
	return appendDecimal(b, u, v < 0)
}

// AppendUint appends u in decimal, as strconv.AppendUint(b, u, 10) does.
func AppendUint(b []byte, u uint64) []byte { return appendDecimal(b, u, false) }

// appendDecimal appends u in decimal, after a minus sign if neg. The
// dispatch log and the result are mostly numbers, so the usual case (below
// 10^16, with room in b) has no loop and no call: u is cut into pieces of
// 8 digits, each turned into 8 ASCII digits at once by digits8 and stored
// with one 8-byte write, the leading piece shifted to drop its leading
// zeros. It may write up to 16 bytes past the end of b (within its
// capacity), which the next appends overwrite.
func appendDecimal(b []byte, u uint64, neg bool) []byte {
	i := len(b)
	if neg || u >= 1e16 || cap(b)-i < 16 {
		return appendDecimalSlow(b, u, neg)
	}
	// u|1 has as many digits as u, and one for 0. floor(log10(u|1)) is t or
	// t-1 (1233/4096 is just over log10(2)); the powers of ten from 10 are
	// even, so u|1 >= 10^t exactly when u >= 10^t.
	t := bits.Len64(u|1) * 1233 >> 12
	n := t + b2i(u|1 >= pow10[t])
	w := b[i : i+16 : i+16]
	k, lo := n, uint64(0) // digits of the leading piece (1 to 8), and the piece after it
	if u >= 1e8 {
		k, lo, u = n-8, u%1e8, u/1e8
	}
	binary.LittleEndian.PutUint64(w[:8], digits8(uint32(u))>>(64-8*k))
	if k < n {
		binary.LittleEndian.PutUint64(w[k:k+8], digits8(uint32(lo)))
	}
	return b[:i+n]
}

// appendDecimalSlow is appendDecimal's rare case: a negative number, one of
// 17 digits or more, or b to grow.
func appendDecimalSlow(b []byte, u uint64, neg bool) []byte {
	b = slices.Grow(b, 40)
	if neg {
		b = append(b, '-')
	}
	if u < 1e16 {
		return appendDecimal(b, u, false)
	}
	b = appendDecimal(b, u/1e16, false)
	i, u := len(b), u%1e16 // its last 16 digits
	binary.LittleEndian.PutUint64(b[i:i+8], digits8(uint32(u/1e8)))
	binary.LittleEndian.PutUint64(b[i+8:i+16], digits8(uint32(u%1e8)))
	return b[:i+16]
}

// digits8 returns the 8 decimal digits of x < 10^8, leading zeros
// included, as ASCII in the bytes of a little-endian word: the first digit
// in the lowest byte. It divides all lanes at once (SWAR): x into two
// 4-digit halves in 32-bit lanes, each into two 2-digit quarters in 16-bit
// lanes, each into two digits in bytes. Each division by 100 or 10 is a
// multiplication and a shift, exact for the lane's values (below 10^4:
// 10486/2^20 is 1/100 to within 2.2e-7 of a lane; below 100: 103/2^10 is
// 1/10 to within 6e-4), with no carry between lanes.
func digits8(x uint32) uint64 {
	hi := x / 10000
	z := uint64(hi) | uint64(x-hi*10000)<<32     // 4-digit halves, the first low
	q := z * 10486 >> 20 & 0x0000007f_0000007f   // their first 2 digits
	z = q | (z-q*100)<<16                        // 2-digit quarters
	q = z * 103 >> 10 & 0x000f_000f_000f_000f    // their first digit
	return q | (z-q*10)<<8 + 0x30303030_30303030 // digits
}

// b2i is 1 for true, 0 for false.
func b2i(b bool) int {
	var i int
	if b {
		i = 1
	}
	return i
}
