package ubb

import (
	"strings"
	"testing"
)

// MAXDISPATCHTHREADS and MINDISPATCHTHREADS reach every instance of their
// entry; DEFAULT: lines reach the entries after them; an entry without
// either has one thread.
func TestDispatchThreads(t *testing.T) {
	m := mustLoad(t, head+
		"a SRVGRP=G1 SRVID=1 MIN=2 MAXDISPATCHTHREADS=4 MINDISPATCHTHREADS=2\n"+
		"b SRVGRP=G1 SRVID=10\n"+
		"DEFAULT: MAXDISPATCHTHREADS=3\n"+
		"c SRVGRP=G1 SRVID=20\n"+
		"d SRVGRP=G1 SRVID=30 MINDISPATCHTHREADS=1\n")
	for _, tc := range []struct {
		i, k, threads, minThreads int
	}{{0, 4, 4, 2}, {1, 4, 4, 2}, {2, 1, 0, 0}, {3, 3, 3, 0}, {4, 3, 3, 1}} {
		s := m.Servers[tc.i]
		if s.DispatchThreads() != tc.k || s.Threads != tc.threads || s.MinThreads != tc.minThreads {
			t.Errorf("%s: DispatchThreads %d, Threads %d, MinThreads %d; want %d, %d, %d",
				s.ID, s.DispatchThreads(), s.Threads, s.MinThreads, tc.k, tc.threads, tc.minThreads)
		}
	}
	for _, w := range m.Warnings {
		if strings.Contains(w.Message, "DISPATCHTHREADS") {
			t.Errorf("unexpected warning %v", w)
		}
	}
}

func TestDispatchThreadsErrors(t *testing.T) {
	for _, tc := range []struct{ entry, want string }{
		{"a SRVGRP=G1 SRVID=1 MAXDISPATCHTHREADS=0", `t.ubb:8:40: MAXDISPATCHTHREADS must be a number from 1 to 999, got "0"`},
		{"a SRVGRP=G1 SRVID=1 MAXDISPATCHTHREADS=1000", `t.ubb:8:40: MAXDISPATCHTHREADS must be a number from 1 to 999, got "1000"`},
		{"a SRVGRP=G1 SRVID=1 MINDISPATCHTHREADS=-1", `t.ubb:8:40: MINDISPATCHTHREADS must be a number from 0 to 999, got "-1"`},
		{"a SRVGRP=G1 SRVID=1 MAXDISPATCHTHREADS=2 MINDISPATCHTHREADS=4",
			`t.ubb:8:61: server a: MINDISPATCHTHREADS=4 is more than MAXDISPATCHTHREADS=2 (line 8)`},
		{"a SRVGRP=G1 SRVID=1 MINDISPATCHTHREADS=2",
			`t.ubb:8:40: server a: MINDISPATCHTHREADS=2 is more than MAXDISPATCHTHREADS=1 (the default)`},
	} {
		if got := firstError(t, head+tc.entry+"\n"); got != tc.want {
			t.Errorf("%s:\n got  %s\n want %s", tc.entry, got, tc.want)
		}
	}
}

// A GWTDOMAIN forwards one request at a time: its MAXDISPATCHTHREADS is
// ignored with a warning at the keyword.
func TestDispatchThreadsGatewayIgnored(t *testing.T) {
	m := mustLoad(t, head+"GWTDOMAIN SRVGRP=G1 SRVID=1 MAXDISPATCHTHREADS=8\n")
	if s := m.Servers[0]; !s.Gateway || s.Threads != 0 || s.DispatchThreads() != 1 {
		t.Errorf("gateway: Gateway %v, Threads %d, DispatchThreads %d; want true, 0, 1", s.Gateway, s.Threads, s.DispatchThreads())
	}
	found := false
	for _, w := range m.Warnings {
		if strings.Contains(w.Message, "server GWTDOMAIN is a GWTDOMAIN: MAXDISPATCHTHREADS is ignored") {
			found = true
			if w.Line != 8 || w.Col != 29 {
				t.Errorf("warning at %d:%d, want 8:29", w.Line, w.Col)
			}
		}
	}
	if !found {
		t.Errorf("warnings %v, want one saying MAXDISPATCHTHREADS is ignored", m.Warnings)
	}
}
