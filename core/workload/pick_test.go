package workload

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestPickScansAndHalvesAlike checks Pick against the definition, the first
// index whose cumulative weight is above u (else the last), on lists short
// (scanned) and long (halved), with weights of 0 among them, u on every
// boundary and between, and at 0 and just below the total.
func TestPickScansAndHalvesAlike(t *testing.T) {
	rd := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 2, 3, 15, 16, 17, 31, 100, 1000} {
		for trial := 0; trial < 20; trial++ {
			cum := make([]float64, n)
			total := 0.0
			for i := range cum {
				if w := rd.IntN(4); w > 0 || i == 0 { // some weights 0 (not the first: a total above 0)
					total += float64(w) + rd.Float64()
				}
				cum[i] = total
			}
			want := func(u float64) int {
				for i, c := range cum {
					if u < c {
						return i
					}
				}
				return n - 1
			}
			us := []float64{0, total * (1 - 1e-16), total}
			for _, c := range cum {
				us = append(us, c, c*(1-1e-12), c*(1+1e-12))
			}
			for k := 0; k < 100; k++ {
				us = append(us, rd.Float64()*total)
			}
			for _, u := range us {
				if got, w := Pick(cum, u), want(u); got != w {
					t.Fatalf("n=%d cum=%v u=%v: Pick = %d, want %d", n, cum, u, got, w)
				}
				if i := Pick(cum, u); i > 0 && cum[i] == cum[i-1] && u < total {
					t.Fatalf("n=%d: u=%v drew index %d, of weight 0", n, u, i)
				}
			}
		}
	}
}

// BenchmarkPick draws among n equal weights: a client set's few services
// (scanned) and an application's hundreds or thousands (halved).
func BenchmarkPick(b *testing.B) {
	for _, n := range []int{4, 64, 4096} {
		cum := make([]float64, n)
		for i := range cum {
			cum[i] = float64(i + 1)
		}
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			rd := rand.New(rand.NewPCG(1, 2))
			s := 0
			for b.Loop() {
				s += Pick(cum, rd.Float64()*float64(n))
			}
			if s < 0 {
				b.Fatal(s)
			}
		})
	}
}
