package doclinks

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// sourceName is a file the docs name in backticks: a path of the
// repository (with a slash), or a Go or TypeScript file by its base name.
var sourceName = regexp.MustCompile("`([A-Za-z0-9_.-]+(?:/[A-Za-z0-9_.-]+)*\\.(?:go|ts|json|md|yml|sh|css|pgo))`")

// TestDocsNameFilesThatExist holds the docs' recipes and layout tables to
// the tree: every repository path they name in backticks exists, and every
// Go or TypeScript file they name by its base name is a file of the
// repository, so a recipe's file list that drifts from the code fails here.
func TestDocsNameFilesThatExist(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	bases := map[string]bool{}
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && (d.Name() == "node_modules" || d.Name() == ".git" || d.Name() == "dist") {
			return filepath.SkipDir
		}
		bases[d.Name()] = true
		return nil
	})
	docs, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	docs = append(docs, filepath.Join(root, "README.md"), filepath.Join(root, "CHANGELOG.md"), filepath.Join(root, "examples", "README.md"))
	checked := 0
	for _, doc := range docs {
		data, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, doc)
		for _, m := range sourceName.FindAllStringSubmatch(string(data), -1) {
			name := m[1]
			switch {
			case strings.HasPrefix(name, "...") || strings.Contains(name, "NAME"):
				// a placeholder: examples/NAME.md, .../result.json
			case strings.Contains(name, "/"):
				checked++
				found := false
				// from the root, the doc's folder, or the page's (src/main.ts)
				for _, dir := range []string{root, filepath.Dir(doc), filepath.Join(root, "frontend")} {
					if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
						found = true
					}
				}
				if !found {
					t.Errorf("%s names %s, which is no file of the repository", rel, name)
				}
			case strings.HasSuffix(name, ".go") || strings.HasSuffix(name, ".ts"):
				checked++
				if !bases[name] {
					t.Errorf("%s names %s, and the repository has no file of that name", rel, name)
				}
			}
		}
	}
	if checked < 100 {
		t.Errorf("checked %d file names in the docs, want the recipes' and layout's hundreds", checked)
	}
}
