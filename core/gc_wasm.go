package core

import "runtime"

// letGCRun yields to the Go scheduler between slices of a run. WebAssembly
// has one thread and no preemption: a garbage collection that starts during
// a run (the run's setup allocates) finishes its marking only when the run's
// goroutine yields, and until then every copy of a record holding a pointer
// (a request: its ID and routing value) goes through the write barrier, about
// a tenth of the run's time. The scheduler lets the collector's workers run
// here; the run's results do not depend on it.
func letGCRun() { runtime.Gosched() }
