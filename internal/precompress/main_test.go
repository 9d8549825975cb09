package main

import (
	"bytes"
	"compress/gzip"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/andybalholm/brotli"
)

// TestPrecompress: a compressible file gets its .br and .gz beside it,
// which decode to the file; a small file, a type that does not compress and
// a file that does not get smaller get none.
func TestPrecompress(t *testing.T) {
	dir := t.TempDir()
	js := bytes.Repeat([]byte("console.log('tuxlb');\n"), 500)
	noise := make([]byte, 4096)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range noise {
		noise[i] = byte(r.Uint32())
	}
	files := map[string][]byte{
		"assets/index-Ab3x_9aZ.js": js,
		"assets/small-Ab3x_9aZ.js": []byte("x()"),
		"assets/logo-Ab3x_9aZ.png": js, // not a type that compresses
		"assets/noise-Ab3x_9aZ.js": noise,
	}
	for name, data := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	plain, br, gz, err := precompress(dir)
	if err != nil {
		t.Fatal(err)
	}
	if plain != int64(len(js)+len(noise)) || br >= plain || gz >= plain {
		t.Errorf("totals: plain %d, brotli %d, gzip %d; want %d plain and less for each", plain, br, gz, len(js)+len(noise))
	}
	base := filepath.Join(dir, "assets", "index-Ab3x_9aZ.js")
	b, err := os.ReadFile(base + ".br")
	if err != nil {
		t.Fatal(err)
	}
	if got, err := io.ReadAll(brotli.NewReader(bytes.NewReader(b))); err != nil || !bytes.Equal(got, js) {
		t.Errorf(".br decodes to %d bytes (%v), want the file's %d", len(got), err, len(js))
	}
	g, err := os.ReadFile(base + ".gz")
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(g))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := io.ReadAll(zr); err != nil || !bytes.Equal(got, js) {
		t.Errorf(".gz decodes to %d bytes (%v), want the file's %d", len(got), err, len(js))
	}
	for _, name := range []string{"small-Ab3x_9aZ.js", "logo-Ab3x_9aZ.png", "noise-Ab3x_9aZ.js"} {
		for _, ext := range []string{".br", ".gz"} {
			if _, err := os.Stat(filepath.Join(dir, "assets", name+ext)); err == nil {
				t.Errorf("%s%s written, want none", name, ext)
			}
		}
	}
}
