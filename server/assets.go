package server

import (
	"bytes"
	"compress/gzip"
	"io/fs"
	"net/http"
	"path"
	"regexp"
	"strings"
	"sync"

	"github.com/andybalholm/brotli"
)

// asset is one of the playground's files as served: its ETag and, for the
// types that compress, its brotli and gzip forms: those made at build time
// when the build has them (precompressed), else each made the first time a
// client that accepts it asks (the files are built into the binary, so
// once per process) and kept.
type asset struct {
	etag           string
	compress       bool
	brOnce, gzOnce sync.Once
	br, gz         []byte // nil: not smaller than the file, or not made yet
}

// compressible are the types worth compressing; images other than SVG and
// fonts are compressed already.
var compressible = map[string]bool{".wasm": true, ".js": true, ".mjs": true, ".css": true, ".html": true,
	".json": true, ".svg": true, ".map": true, ".txt": true}

// minCompress is the smallest file compressed: below it the headers cost more.
const minCompress = 1024

// hashedAsset matches the file names Vite gives what it bundles:
// assets/NAME-HASH.EXT, HASH 8 characters of base64url. Such a name never
// changes content, so it is cached for a year without revalidation.
var hashedAsset = regexp.MustCompile(`^assets/.+-[A-Za-z0-9_-]{8}\.[A-Za-z0-9]+$`)

// assetOf returns the asset record of name.
func (s *Server) assetOf(name string, data []byte) *asset {
	if v, ok := s.assetTags.Load(name); ok {
		return v.(*asset)
	}
	a := &asset{etag: etagOf(data), compress: compressible[path.Ext(name)] && len(data) >= minCompress}
	if a.compress && s.cfg.Assets != nil {
		a.precompressed(s.cfg.Assets, name, len(data))
	}
	v, _ := s.assetTags.LoadOrStore(name, a)
	return v.(*asset)
}

// precompressed takes the forms made at build time (NAME.br and NAME.gz
// beside the file, by internal/precompress), when smaller than the file: a
// playground built by `go tool task build` is then never compressed while
// serving. A form that is absent is made on first request, as before.
func (a *asset) precompressed(fsys fs.FS, name string, size int) {
	if b, err := fs.ReadFile(fsys, name+".br"); err == nil && len(b) < size {
		a.brOnce.Do(func() { a.br = b })
	}
	if b, err := fs.ReadFile(fsys, name+".gz"); err == nil && len(b) < size {
		a.gzOnce.Do(func() { a.gz = b })
	}
}

// brotli returns the brotli form of data (nil if not smaller), made once.
func (a *asset) brotli(data []byte) []byte {
	a.brOnce.Do(func() {
		var b bytes.Buffer
		w := brotli.NewWriterLevel(&b, 5) // within 2% of level 6, in three quarters of the time
		w.Write(data)
		if w.Close() == nil && b.Len() < len(data) {
			a.br = b.Bytes()
		}
	})
	return a.br
}

// gzip returns the gzip form of data (nil if not smaller), made once.
func (a *asset) gzip(data []byte) []byte {
	a.gzOnce.Do(func() {
		var b bytes.Buffer
		w, _ := gzip.NewWriterLevel(&b, gzip.DefaultCompression) // BestCompression: 0.6% smaller, three times slower
		w.Write(data)
		if w.Close() == nil && b.Len() < len(data) {
			a.gz = b.Bytes()
		}
	})
	return a.gz
}

// negotiate picks the form of the asset to send: brotli, gzip or the file
// itself, by the request's Accept-Encoding; the ETag differs by form.
func (a *asset) negotiate(r *http.Request, data []byte) (body []byte, encoding, etag string) {
	if !a.compress {
		return data, "", a.etag
	}
	wantBr, wantGz := acceptsCoding(r, "br"), acceptsCoding(r, "gzip")
	if !wantBr && !wantGz {
		return data, "", a.etag
	}
	tagged := func(suffix string) string { return strings.TrimSuffix(a.etag, `"`) + "-" + suffix + `"` }
	if wantBr {
		if br := a.brotli(data); br != nil {
			return br, "br", tagged("br")
		}
	}
	if wantGz {
		if gz := a.gzip(data); gz != nil {
			return gz, "gzip", tagged("gz")
		}
	}
	return data, "", a.etag
}

// acceptsCoding reports whether the request's Accept-Encoding allows coding
// (listed, without q=0).
func acceptsCoding(r *http.Request, coding string) bool {
	for _, part := range strings.Split(r.Header.Get("Accept-Encoding"), ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.EqualFold(strings.TrimSpace(name), coding) {
			q := strings.ReplaceAll(strings.TrimSpace(params), " ", "")
			return q != "q=0" && q != "q=0.0" && q != "q=0.00" && q != "q=0.000"
		}
	}
	return false
}

// cacheControl is a file's Cache-Control: a year and immutable for Vite's
// content-hashed names (every script, style sheet, the core tuxlb-HASH.wasm
// and Go's wasm_exec-HASH.js), revalidation (with the ETag) for the rest,
// whose names stay across builds (index.html, favicons).
func cacheControl(name string) string {
	if hashedAsset.MatchString(name) {
		return "public, max-age=31536000, immutable"
	}
	return "no-cache"
}
