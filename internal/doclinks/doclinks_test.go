package doclinks

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The links of testdata/stale: the three that name nothing are found, with
// why, and nothing else is.
func TestCheckFindsStaleLinks(t *testing.T) {
	t.Parallel()
	dir, err := filepath.Abs(filepath.Join("testdata", "stale"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := Check("example.com/m", dir)
	if err != nil {
		t.Fatal(err)
	}
	var links []string
	for _, s := range got {
		links = append(links, s.Link+": "+s.Why)
	}
	want := []string{
		"Renamed: names nothing declared in its package or the packages its file imports",
		"Kept.Gone: Kept has no field or method Gone",
		"Kept.Run.Deeper: Kept has no field or method Run.Deeper",
		"stale.Kept: the file does not import stale, so the link is plain text",
	}
	if !slices.Equal(links, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(links, "\n"), strings.Join(want, "\n"))
	}
}

// Every doc link of the module's Go source names something: a rename that
// leaves a comment behind fails here.
func TestModuleDocLinksResolve(t *testing.T) {
	t.Parallel()
	root := filepath.Join("..", "..")
	mod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	module := ""
	for _, line := range strings.Split(string(mod), "\n") {
		if m, ok := strings.CutPrefix(strings.TrimSpace(line), "module "); ok {
			module = strings.Trim(strings.TrimSpace(m), `"`)
		}
	}
	stale, err := Check(module, root)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range stale {
		t.Errorf("%s (a renamed identifier? fix the comment)", s)
	}
}
