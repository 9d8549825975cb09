package server

import (
	"bytes"
	"compress/gzip"
	"net/http"
	"path"
	"regexp"
	"strings"
	"sync"

	"github.com/andybalholm/brotli"
)

// asset is one of the playground's files as served: its ETag and, for the
// types that compress, its brotli and gzip forms, made the first time a
// client that accepts them asks (the files are built into the binary, so
// once per process) and kept.
type asset struct {
	etag     string
	once     sync.Once
	br, gz   []byte // nil: not smaller than the file, or not compressed
	compress bool
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
	v, _ := s.assetTags.LoadOrStore(name, a)
	return v.(*asset)
}

// encoded returns the brotli and gzip forms of data, compressing once.
func (a *asset) encoded(data []byte) (br, gz []byte) {
	a.once.Do(func() {
		var b bytes.Buffer
		bw := brotli.NewWriterLevel(&b, 6) // within a few percent of 11, in a fraction of the time
		bw.Write(data)
		if bw.Close() == nil && b.Len() < len(data) {
			a.br = bytes.Clone(b.Bytes())
		}
		b.Reset()
		gw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
		gw.Write(data)
		if gw.Close() == nil && b.Len() < len(data) {
			a.gz = bytes.Clone(b.Bytes())
		}
	})
	return a.br, a.gz
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
	br, gz := a.encoded(data)
	tagged := func(suffix string) string { return strings.TrimSuffix(a.etag, `"`) + "-" + suffix + `"` }
	switch {
	case wantBr && br != nil:
		return br, "br", tagged("br")
	case wantGz && gz != nil:
		return gz, "gzip", tagged("gz")
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
// content-hashed names, revalidation (with the ETag) for the rest, whose
// names stay across builds (index.html, tuxlb.wasm, wasm_exec.js).
func cacheControl(name string) string {
	if hashedAsset.MatchString(name) {
		return "public, max-age=31536000, immutable"
	}
	return "no-cache"
}
