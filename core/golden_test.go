package core

import (
	"flag"
	"testing"

	"github.com/tuxlb/tuxlb/internal/golden"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// checkGolden compares got with the golden file at path, or rewrites the
// file under -update (golden.Check).
func checkGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	golden.Check(t, path, got, *update)
}
