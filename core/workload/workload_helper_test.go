package workload

// drain reads every request of a workload.
func drain(rs Stream) []Request {
	var out []Request
	var r Request
	for rs.Next(&r) {
		out = append(out, r)
	}
	return out
}

func ptr[T any](v T) *T { return &v }

// f and ip point at a scenario's optional numbers.
func f(v float64) *float64 { return &v }
func ip(v int) *int        { return &v }
