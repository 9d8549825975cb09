package core

import "github.com/tuxlb/tuxlb/core/workload"

// drain reads every request of a workload.
func drain(rs workload.Stream) []workload.Request {
	var out []workload.Request
	var r workload.Request
	for rs.Next(&r) {
		out = append(out, r)
	}
	return out
}

func ptr[T any](v T) *T { return &v }
