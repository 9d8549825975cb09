//go:build ignore

// gen_export writes export.csv: 7 000 requests of the bank application as a
// monitoring tool exports them (go run gen_export.go > export.csv). The
// numbers are made up, from a fixed seed: Poisson arrivals at 50 requests a
// second over 140 s from 13/11/2026 10:00:00, INQUIRY 60%, WITHDRAWAL 25%,
// DEPOSIT 15%, half from each machine (its host name, as the monitor writes
// it), accounts uniform over 10000-89999, and an elapsed time that is the
// response the monitor saw (lognormal around 8 ms for INQUIRY, 14 ms for
// the others). The last line is the monitor's total, as exports have one.
package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"time"
)

func main() {
	r := rand.New(rand.NewPCG(2026, 11))
	t := time.Date(2026, 11, 13, 10, 0, 0, 0, time.UTC)
	fmt.Println("Timestamp;Service;Machine;Elapsed(ms);Account")
	for i := 0; i < 7000; i++ {
		t = t.Add(time.Duration(r.ExpFloat64() / 50 * float64(time.Second)).Round(time.Millisecond))
		svc, mean := "INQUIRY", 8.0
		switch u := r.Float64(); {
		case u > 0.85:
			svc, mean = "DEPOSIT", 14
		case u > 0.6:
			svc, mean = "WITHDRAWAL", 14
		}
		host := []string{"node1", "NODE2"}[r.IntN(2)]
		elapsed := mean * math.Exp(0.4*r.NormFloat64()-0.08)
		ms := strings.Replace(fmt.Sprintf("%.1f", elapsed), ".", ",", 1)
		fmt.Printf("%s;%s;%s;%s;%d\n", t.Format("02/01/2006 15:04:05.000"), svc, host, ms, 10000+r.IntN(80000))
	}
	fmt.Println("Total;7000;;;")
}
