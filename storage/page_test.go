package storage

import (
	"context"
	"strings"
	"testing"
	"unicode/utf8"
)

// A list page is bounded in bytes whatever was stored: each name is cut
// to ListNameMax characters (saying so with …) by the database, and a
// page stops once its names pass ListPageBytes, with a cursor to the rest.
func TestListPageBounded(t *testing.T) {
	eachStore(t, func(t *testing.T, st Store) {
		ctx := context.Background()
		huge := strings.Repeat("n", 20_000)
		for i := 0; i < 40; i++ {
			r := sampleRun(i, false)
			r.Name = huge
			if err := st.CreateRun(ctx, r); err != nil {
				t.Fatal(err)
			}
		}
		seen, pages, cursor := 0, 0, ""
		for {
			list, next, err := st.Runs(ctx, 100, cursor)
			if err != nil {
				t.Fatal(err)
			}
			pages++
			size := 0
			for _, r := range list {
				size += len(r.Name)
				if utf8.RuneCountInString(r.Name) != ListNameMax+1 || !strings.HasSuffix(r.Name, "…") {
					t.Fatalf("a listed name of %d characters, want %d and an ellipsis", utf8.RuneCountInString(r.Name), ListNameMax+1)
				}
			}
			if size > ListPageBytes+4*ListNameMax+4 {
				t.Errorf("page %d: names of %d bytes, want at most about %d", pages, size, ListPageBytes)
			}
			seen += len(list)
			if next == "" {
				break
			}
			cursor = next
		}
		if seen != 40 || pages < 2 {
			t.Errorf("listed %d runs over %d pages, want all 40 over more than one", seen, pages)
		}
		run, err := st.Run(ctx, sampleRun(0, false).ID)
		if err != nil || len(run.Name) != len(huge) {
			t.Errorf("the run itself: name of %d bytes (%v), want it whole", len(run.Name), err)
		}
	})
}
