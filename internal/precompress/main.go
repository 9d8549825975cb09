// Command precompress writes, beside every file of a built playground that
// compresses (by its extension, 1 KiB or more), its brotli form (NAME.br, at
// brotli's best level) and its gzip form (NAME.gz, gzip's best level), each
// only when smaller than the file. `tuxlb serve` sends them by content
// negotiation, so nothing is compressed while serving. It runs at build time
// (`go tool task frontend`): go run ./internal/precompress frontend/dist
package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/andybalholm/brotli"
)

// compressible are the extensions worth compressing (as server/assets.go).
var compressible = map[string]bool{".wasm": true, ".js": true, ".mjs": true, ".css": true, ".html": true,
	".json": true, ".svg": true, ".map": true, ".txt": true}

const minCompress = 1024

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: precompress DIR")
		os.Exit(2)
	}
	plain, br, gz, err := precompress(os.Args[1])
	if err != nil {
		fmt.Fprintf(os.Stderr, "precompress: %v\n", err)
		os.Exit(1)
	}
	fmt.Printf("precompress %s: %s plain, %s brotli, %s gzip\n", strings.TrimSuffix(os.Args[1], "/"), size(plain), size(br), size(gz))
}

// precompress writes the .br and .gz forms beside the files of dir that
// compress, and returns the bytes of those files and of what a client
// taking brotli, or gzip, downloads of them.
func precompress(dir string) (plain, br, gz int64, err error) {
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !compressible[filepath.Ext(path)] {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil || len(data) < minCompress {
			return err
		}
		b, g, err := compress(data)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		plain += int64(len(data))
		for _, f := range []struct {
			ext  string
			data []byte
			n    *int64
		}{{".br", b, &br}, {".gz", g, &gz}} {
			if len(f.data) >= len(data) {
				*f.n += int64(len(data))
				continue
			}
			*f.n += int64(len(f.data))
			if err := os.WriteFile(path+f.ext, f.data, 0o644); err != nil {
				return err
			}
		}
		return nil
	})
	return plain, br, gz, err
}

// compress returns data in brotli and in gzip, both at their best level.
func compress(data []byte) (br, gz []byte, err error) {
	var b bytes.Buffer
	w := brotli.NewWriterLevel(&b, brotli.BestCompression)
	w.Write(data)
	if err := w.Close(); err != nil {
		return nil, nil, err
	}
	var g bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&g, gzip.BestCompression)
	zw.Write(data)
	if err := zw.Close(); err != nil {
		return nil, nil, err
	}
	return b.Bytes(), g.Bytes(), nil
}

func size(n int64) string { return fmt.Sprintf("%.2f MB", float64(n)/1e6) }
