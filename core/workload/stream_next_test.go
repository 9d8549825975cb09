package workload

import (
	"testing"

	"github.com/tuxlb/tuxlb/core/internal/mergetree"
)

// TestStreamNextOverwritesRequest checks that streamSource.next sets every
// field of the request it fills, whatever the request held before: a stale
// trace id, routing value or service time must not leak into a generated
// request.
func TestStreamNextOverwritesRequest(t *testing.T) {
	sp := streamSpec{kind: arrivalConstant, service: 2, origin: 1, prio: 7, ratePMS: 1, limitMS: 10, limitUS: 10_000}
	var s streamSource
	sp.start(&s, 3, 4)
	stale := Request{Seq: 99, ID: "stale", TimeUS: -5, Service: -1, Origin: -1, ServiceUS: 1234, Prio: -1, Key: 1,
		Route: 3, RouteVal: "stale", RouteNum: 2.5}
	us := s.next(nil, 0, 0)
	for n := range uint64(3) {
		r := stale
		if us == mergetree.NoMore {
			t.Fatalf("request %d: next reported the end, want a request", n)
		}
		us = s.next(&r, us, int64(n)+10)
		want := Request{Seq: int64(n) + 10, TimeUS: int64(n) * 1000, Service: 2, Origin: 1, ServiceUS: -1, Prio: 7,
			Key: Mix64(KeyBase(3, 5) ^ n)}
		if r != want {
			t.Errorf("request %d: got %+v, want %+v", n, r, want)
		}
	}
}
