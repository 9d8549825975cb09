package result

import (
	"encoding/json"

	"github.com/tuxlb/tuxlb/core/diag"
	"github.com/tuxlb/tuxlb/core/internal/jsonx"
)

// Encode is the one encoding of a Result: indented JSON (2 spaces)
// and a newline. The CLI, the REST API and WASM all hand out these bytes.
func Encode(r *Result) []byte {
	b, err := jsonx.MarshalIndent(r, encodedSize(r))
	if err != nil {
		// A Result holds only strings, integers, finite floats, slices and
		// string-keyed maps, which always encode; report rather than panic.
		b, _ = json.Marshal(diag.Errorf(diag.EINTERNAL, "encode result: %v", err))
	}
	return append(b, '\n')
}

// EncodeCompact is Encode's document without the whitespace between its
// tokens and without the final newline (json.Marshal's bytes): about a
// third of the bytes, what a server stores. Indented by two spaces it is
// Encode's bytes again.
func EncodeCompact(r *Result) []byte {
	b, err := jsonx.Marshal(r, encodedSize(r)/3)
	if err != nil {
		b, _ = json.Marshal(diag.Errorf(diag.EINTERNAL, "encode result: %v", err))
	}
	return b
}

// encodedSize is a generous guess at the size of r's encoding: about 20
// bytes per number of a series, 1 KB per server, queue, service or
// machine.
func encodedSize(r *Result) int {
	s := &r.Series
	lines := 1 + len(s.Queue) + len(s.Util) + len(s.Dispatch) + len(s.Counters) + len(s.Failures)
	return 4096 + 20*len(s.StartMS)*lines + 20*len(s.ResetsMS) +
		1024*(len(r.Servers)+len(r.Queues)+len(r.Services)+len(r.Machines)) +
		128*(len(r.Lifecycle)+len(r.Warnings))
}
