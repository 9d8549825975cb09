package storage

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/tuxlb/tuxlb/core/diag"
)

// setClock gives st a clock the test moves by hand.
func setClock(t *testing.T, st Store, now *time.Time) {
	clock := func() time.Time { return *now }
	switch db := st.(type) {
	case *DB:
		db.Now = clock
	case *Postgres:
		db.Now = clock
	default:
		t.Fatalf("a %T", st)
	}
}

func TestIdempotencyKeys(t *testing.T) {
	eachStore(t, func(t *testing.T, st Store) {
		ctx := context.Background()
		now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
		setClock(t, st, &now)
		if _, _, _, _, err := st.Idempotent(ctx, "/api/v1/runs", "k1"); diag.ErrorCode(err) != diag.ENOTFOUND {
			t.Fatalf("unknown key: %v, want ENOTFOUND", err)
		}
		if err := st.SaveIdempotent(ctx, "/api/v1/runs", "k1", "h1", 201, "/api/v1/runs/x", []byte(`{"id":"x"}`)); err != nil {
			t.Fatal(err)
		}
		// A second answer under the same key (a concurrent request) does not replace the first.
		if err := st.SaveIdempotent(ctx, "/api/v1/runs", "k1", "h2", 201, "/api/v1/runs/y", []byte(`{"id":"y"}`)); err != nil {
			t.Fatal(err)
		}
		hash, status, loc, body, err := st.Idempotent(ctx, "/api/v1/runs", "k1")
		if err != nil || hash != "h1" || status != 201 || loc != "/api/v1/runs/x" || !bytes.Equal(body, []byte(`{"id":"x"}`)) {
			t.Fatalf("stored answer: %q %d %q %q %v", hash, status, loc, body, err)
		}
		// Keys are per route.
		if _, _, _, _, err := st.Idempotent(ctx, "/api/v1/sweeps", "k1"); diag.ErrorCode(err) != diag.ENOTFOUND {
			t.Errorf("the key on another route: %v, want ENOTFOUND", err)
		}
		if err := st.SaveIdempotent(ctx, "/api/v1/scenarios", "k1", "h3", 200, "", nil); err != nil {
			t.Fatal(err)
		}
		if _, status, _, body, err := st.Idempotent(ctx, "/api/v1/scenarios", "k1"); err != nil || status != 200 || len(body) != 0 {
			t.Errorf("an empty body: %d %q %v", status, body, err)
		}

		// Within 24 h the answer stands; after, it is gone and the key is free.
		now = now.Add(IdempotencyTTL - time.Minute)
		if _, _, _, _, err := st.Idempotent(ctx, "/api/v1/runs", "k1"); err != nil {
			t.Errorf("a key 23:59 old: %v", err)
		}
		now = now.Add(2 * time.Minute)
		if _, _, _, _, err := st.Idempotent(ctx, "/api/v1/runs", "k1"); diag.ErrorCode(err) != diag.ENOTFOUND {
			t.Errorf("a key 24:01 old: %v, want ENOTFOUND", err)
		}
		if err := st.SaveIdempotent(ctx, "/api/v1/runs", "k1", "h4", 201, "/api/v1/runs/z", []byte(`{}`)); err != nil {
			t.Fatal(err)
		}
		if hash, _, loc, _, err := st.Idempotent(ctx, "/api/v1/runs", "k1"); err != nil || hash != "h4" || loc != "/api/v1/runs/z" {
			t.Errorf("an expired key reused: %q %q %v, want the new answer", hash, loc, err)
		}
	})
}
