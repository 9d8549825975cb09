package scenario

import (
	"bytes"
	"encoding/json"
	"errors"

	"github.com/tuxlb/tuxlb/core/internal/jsonx"
)

// Warmup is the scenario's warmup_ms: a number of milliseconds, or "auto",
// the transient found by MSER-5 on the run's response series.
type Warmup struct {
	MS   float64
	Auto bool
}

// errWarmup is UnmarshalJSON's error; the strict reader words it with
// the field's path (JSONProblem).
var errWarmup = errors.New(`want a number of milliseconds >= 0 or "auto"`)

// UnmarshalJSON reads a number or "auto".
func (w *Warmup) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	if len(data) > 0 && data[0] == '"' {
		var s string
		if err := json.Unmarshal(data, &s); err != nil || s != "auto" {
			return errWarmup
		}
		*w = Warmup{Auto: true}
		return nil
	}
	var x float64
	if err := json.Unmarshal(data, &x); err != nil {
		return errWarmup
	}
	*w = Warmup{MS: x}
	return nil
}

// MarshalJSON writes the warm-up back as it was read.
func (w Warmup) MarshalJSON() ([]byte, error) {
	if w.Auto {
		return []byte(`"auto"`), nil
	}
	return json.Marshal(w.MS)
}

// JSONProblem says what is wrong with a warm-up that did not decode.
func (*Warmup) JSONProblem(v any, path string) jsonx.Problem {
	switch x := v.(type) {
	case json.Number:
		return jsonx.Problem{}
	case string:
		if x == "auto" {
			return jsonx.Problem{}
		}
	}
	return jsonx.Problem{Path: path, Why: `want a number of milliseconds >= 0 or "auto"`}
}

var _ jsonx.Shaped = (*Warmup)(nil)
