package warmup

import (
	"fmt"
	"strings"
	"testing"
)

func TestTruncation(t *testing.T) {
	var z []float64
	for j := 0; j < 20; j++ {
		z = append(z, float64(4*(5*j+3)))
	}
	for j := 20; j < 100; j++ {
		z = append(z, 4)
	}
	if d := Truncation(z); d != 20 {
		t.Errorf("d = %d, want 20", d)
	}
	// No transient: a stationary alternating series truncates nothing.
	flat := []float64{1, 3, 1, 3, 1, 3, 1, 3}
	if d := Truncation(flat); d != 0 {
		t.Errorf("flat: d = %d, want 0", d)
	}
	if d := Truncation(nil); d != 0 {
		t.Errorf("empty: d = %d", d)
	}
}

// TestCollector feeds a dispatch log by hand: 10 requests issued at 0 ms
// with responses of 100 ms (a transient), then 30 issued every 10 ms from
// 1000 ms with responses of 1 ms, a failed request (no reply) and a row
// whose quoted service holds a comma among them. In batches of 5 the means
// are 100, 100, then six batches of 1 ms: MSER(d) is 0 from d = 2 (no
// spread left) and above 0 before, so d = 2, and the warm-up is the issue
// time of the 11th replied request, 1000 ms.
func TestCollector(t *testing.T) {
	var b strings.Builder
	b.WriteString("id,service,origin,issue_us,server,queue,enqueue_us,start_us,end_us,reply_us,reason\n")
	for k := 0; k < 10; k++ {
		fmt.Fprintf(&b, "%d,SVC,SITE1,0,G/1,Q,0,0,0,100000,idle\n", k+1)
	}
	b.WriteString("x,SVC,SITE1,500000,,,,,,,TPENOENT\n") // failed: not in the series
	for k := 0; k < 30; k++ {
		issue := 1_000_000 + 10_000*k
		svc := "SVC"
		if k == 3 {
			svc = `"A,B"`
		}
		fmt.Fprintf(&b, "%d,%s,SITE1,%d,G/1,Q,%d,%d,%d,%d,idle\n", k+11, svc, issue, issue, issue, issue+1000, issue+1000)
	}
	// the log in two chunks, the second starting mid-row
	log := b.String()
	c := &Collector{}
	cut := len(log) / 2
	c.Write([]byte(log[:cut]))
	c.Write([]byte(log[cut:]))
	if len(c.means) != 8 || c.means[0] != 100000 || c.means[2] != 1000 {
		t.Fatalf("batch means %v, want 2 of 100000 then 6 of 1000", c.means)
	}
	if got := c.WarmupUS(); got != 1_000_000 {
		t.Errorf("warm-up %d us, want 1000000", got)
	}
}
