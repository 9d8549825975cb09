package storage

import (
	"bytes"
	"context"
	"crypto/sha256"
	"io"
	"math/rand/v2"
	"runtime"
	"testing"
)

// readDispatch reads a stored dispatch log whole.
func readDispatch(ctx context.Context, st Store, id string) ([]byte, int64, error) {
	r, size, err := st.Dispatch(ctx, id)
	if err != nil {
		return nil, 0, err
	}
	b, err := io.ReadAll(r)
	return b, size, err
}

// bigLog returns n bytes that gzip barely compresses (as a compressed log
// is), the same for a given seed.
func bigLog(n int, seed uint64) []byte {
	b := make([]byte, n)
	rng := rand.New(rand.NewPCG(seed, 1))
	for i := 0; i < n; i += 8 {
		v := rng.Uint64()
		for j := 0; j < 8 && i+j < n; j++ {
			b[i+j] = byte(v >> (8 * j))
		}
	}
	return b
}

// Logs of every size around the piece boundaries come back byte for byte,
// with their size, in both stores.
func TestDispatchPieces(t *testing.T) { eachStore(t, testDispatchPieces) }

func testDispatchPieces(t *testing.T, st Store) {
	ctx := context.Background()
	sizes := []int{0, 1, dispatchPiece - 1, dispatchPiece, dispatchPiece + 1, 3*dispatchPiece + 17}
	for i, n := range sizes {
		run := sampleRun(10+i, true)
		run.DispatchGzip = bigLog(n, uint64(n))
		if err := st.CreateRun(ctx, run); err != nil {
			t.Fatalf("size %d: CreateRun: %v", n, err)
		}
		// Read in odd-sized bites, so that reads straddle the pieces.
		r, size, err := st.Dispatch(ctx, run.ID)
		if err != nil {
			t.Fatalf("size %d: Dispatch: %v", n, err)
		}
		var got bytes.Buffer
		buf := make([]byte, 7919)
		for {
			k, err := r.Read(buf)
			got.Write(buf[:k])
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("size %d: Read after %d bytes: %v", n, got.Len(), err)
			}
		}
		if size != int64(n) || !bytes.Equal(got.Bytes(), run.DispatchGzip) {
			t.Errorf("size %d: got %d bytes (size %d), equal %v; want the %d bytes stored",
				n, got.Len(), size, bytes.Equal(got.Bytes(), run.DispatchGzip), n)
		}
	}
}

// Reading a large stored log holds a piece of it, not the whole: the live
// heap halfway through reading a 24 MiB log grows by far less than the log
// (the whole log, as the store read it before, would add 24 MiB or more),
// and the bytes read are the bytes stored.
func TestDispatchStreamsLargeLog(t *testing.T) { eachStore(t, testDispatchStreamsLargeLog) }

func testDispatchStreamsLargeLog(t *testing.T, st Store) {
	ctx := context.Background()
	const n = 24 << 20
	run := sampleRun(1, true)
	run.DispatchGzip = bigLog(n, 42)
	want := sha256.Sum256(run.DispatchGzip)
	if err := st.CreateRun(ctx, run); err != nil {
		t.Fatal(err)
	}
	run = nil // only the store keeps the log now
	base := liveHeap()
	r, size, err := st.Dispatch(ctx, sampleRun(1, true).ID)
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.New()
	var copied int64
	for copied < n/2 {
		k, err := io.CopyN(h, r, 64<<10)
		copied += k
		if err != nil {
			t.Fatalf("read after %d bytes: %v", copied, err)
		}
	}
	mid := liveHeap()
	if _, err := io.Copy(h, r); err != nil {
		t.Fatal(err)
	}
	r = nil
	// A pgx connection keeps the buffer of its last big message (the log
	// written) until its next message: the store at rest is the lesser of
	// the heap before and after the read.
	mid -= min(base, liveHeap())
	if got := h.Sum(nil); size != n || !bytes.Equal(got, want[:]) {
		t.Errorf("got size %d, sha256 %x; want %d, %x", size, got, n, want)
	}
	const bound = 2 << 20 // eight pieces
	t.Logf("live heap halfway through a %d-byte log: %+d bytes (bound %d)", n, mid, bound)
	if mid > bound {
		t.Errorf("live heap halfway through reading a %d-byte log grew %d bytes, want at most %d (a few pieces)", n, mid, bound)
	}
}

// liveHeap is the heap in use after a full collection.
func liveHeap() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// A log stored before the pieces (in dispatch_logs) is still read.
func TestDispatchStoredWhole(t *testing.T) {
	db := openStore(t, backends[0].target(t)).(*DB)
	ctx := context.Background()
	run := sampleRun(1, false)
	if err := db.CreateRun(ctx, run); err != nil {
		t.Fatal(err)
	}
	old := bigLog(dispatchPiece+5, 3)
	if _, err := db.write.ExecContext(ctx, "UPDATE runs SET has_dispatch = 1 WHERE id = ?", run.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := db.write.ExecContext(ctx, "INSERT INTO dispatch_logs(run_id, csv_gzip) VALUES (?, ?)", run.ID, old); err != nil {
		t.Fatal(err)
	}
	got, size, err := readDispatch(ctx, db, run.ID)
	if err != nil || size != int64(len(old)) || !bytes.Equal(got, old) {
		t.Errorf("got %d bytes, size %d (%v), equal %v; want the %d bytes stored", len(got), size, err, bytes.Equal(got, old), len(old))
	}
}
