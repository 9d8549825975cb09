package server

import (
	"bytes"
	"compress/gzip"
	"io"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/andybalholm/brotli"
)

func TestAssetsCompressedAndCached(t *testing.T) {
	js := []byte(strings.Repeat("console.log('tuxlb');\n", 200))
	wasm := append([]byte("\x00asm\x01\x00\x00\x00"), bytes.Repeat([]byte{1, 2, 3, 4}, 2000)...)
	assets := fstest.MapFS{}
	for k, v := range testAssets {
		assets[k] = v
	}
	assets["assets/index-Bq3x_9aZ.js"] = &fstest.MapFile{Data: js}
	assets["tuxlb.wasm"] = &fstest.MapFile{Data: wasm}
	h := newHarness(t, func(c *Config) { c.Assets = assets })

	for _, tc := range []struct {
		path    string
		want    []byte
		cache   string
		hdr     string
		enc     string
		decoder func(io.Reader) io.Reader
	}{
		{"/assets/index-Bq3x_9aZ.js", js, "public, max-age=31536000, immutable", "gzip, deflate, br", "br", func(r io.Reader) io.Reader { return brotli.NewReader(r) }},
		{"/assets/index-Bq3x_9aZ.js", js, "public, max-age=31536000, immutable", "gzip", "gzip", nil},
		{"/tuxlb.wasm", wasm, "no-cache", "br;q=0, gzip", "gzip", nil},
		{"/tuxlb.wasm", wasm, "no-cache", "", "", nil},
		{"/tuxlb.wasm", wasm, "no-cache", "identity", "", nil},
	} {
		rec := h.do("GET", tc.path, "", "", "Accept-Encoding", tc.hdr)
		if rec.Code != 200 || rec.Header().Get("Content-Encoding") != tc.enc || rec.Header().Get("Cache-Control") != tc.cache ||
			rec.Header().Get("Vary") != "Accept-Encoding" {
			t.Errorf("%s (Accept-Encoding %q): %d, Content-Encoding %q, Cache-Control %q, Vary %q; want 200, %q, %q, Accept-Encoding",
				tc.path, tc.hdr, rec.Code, rec.Header().Get("Content-Encoding"), rec.Header().Get("Cache-Control"), rec.Header().Get("Vary"), tc.enc, tc.cache)
			continue
		}
		var r io.Reader = rec.Body
		switch {
		case tc.decoder != nil:
			r = tc.decoder(rec.Body)
		case tc.enc == "gzip":
			zr, err := gzip.NewReader(rec.Body)
			if err != nil {
				t.Fatal(err)
			}
			r = zr
		}
		body, err := io.ReadAll(r)
		if err != nil || !bytes.Equal(body, tc.want) {
			t.Errorf("%s (%s): decoded %d bytes, %v; want the file's %d", tc.path, tc.enc, len(body), err, len(tc.want))
		}
		if tc.enc != "" && rec.Body.Len() != 0 {
			t.Errorf("%s: body left unread", tc.path)
		}
		// Each form has its own ETag, and answers 304 to it.
		etag := rec.Header().Get("ETag")
		again := h.do("GET", tc.path, "", "", "Accept-Encoding", tc.hdr, "If-None-Match", etag)
		if again.Code != 304 {
			t.Errorf("%s (%s) If-None-Match %s: %d, want 304", tc.path, tc.enc, etag, again.Code)
		}
	}
	br := h.do("GET", "/tuxlb.wasm", "", "", "Accept-Encoding", "br").Header().Get("ETag")
	plain := h.do("GET", "/tuxlb.wasm", "", "").Header().Get("ETag")
	if br == plain {
		t.Errorf("brotli and plain forms share the ETag %s", br)
	}
	// A small file is sent as it is.
	if rec := h.do("GET", "/assets/app.js", "", "", "Accept-Encoding", "br, gzip"); rec.Header().Get("Content-Encoding") != "" || rec.Body.String() != "console.log(1)" {
		t.Errorf("a small file: Content-Encoding %q", rec.Header().Get("Content-Encoding"))
	}
}

// TestAssetsPrecompressed: a build's NAME.br and NAME.gz (made at build time
// by internal/precompress) are what is sent for NAME, byte for byte, by
// Accept-Encoding; never under their own names; a form not smaller than the
// file is ignored; index.html answers 304 to its ETag and is revalidated.
func TestAssetsPrecompressed(t *testing.T) {
	wasm := append([]byte("\x00asm\x01\x00\x00\x00"), bytes.Repeat([]byte{9, 8, 7, 6}, 4000)...)
	br, gz := []byte("brotli made at build time"), []byte("gzip made at build time")
	const name = "assets/tuxlb-CSC5Yy_8.wasm"
	assets := fstest.MapFS{}
	for k, v := range testAssets {
		assets[k] = v
	}
	assets[name] = &fstest.MapFile{Data: wasm}
	assets[name+".br"] = &fstest.MapFile{Data: br}
	assets[name+".gz"] = &fstest.MapFile{Data: gz}
	css := []byte(strings.Repeat("a{color:red}\n", 200))
	assets["assets/index-Ab3x_9aZ.css"] = &fstest.MapFile{Data: css}
	assets["assets/index-Ab3x_9aZ.css.br"] = &fstest.MapFile{Data: bytes.Repeat([]byte("x"), len(css)+1)} // not smaller
	h := newHarness(t, func(c *Config) { c.Assets = assets })

	for _, tc := range []struct {
		accept, enc string
		want        []byte
	}{
		{"gzip, deflate, br", "br", br},
		{"br;q=0, gzip", "gzip", gz},
		{"gzip", "gzip", gz},
		{"", "", wasm},
		{"identity", "", wasm},
	} {
		rec := h.do("GET", "/"+name, "", "", "Accept-Encoding", tc.accept)
		hd := rec.Header()
		if rec.Code != 200 || hd.Get("Content-Encoding") != tc.enc || !bytes.Equal(rec.Body.Bytes(), tc.want) ||
			hd.Get("Cache-Control") != "public, max-age=31536000, immutable" || hd.Get("Vary") != "Accept-Encoding" ||
			hd.Get("Content-Type") != "application/wasm" {
			t.Errorf("Accept-Encoding %q: %d, Content-Encoding %q, %d bytes, Cache-Control %q, Vary %q, Content-Type %q; want 200, %q, %d bytes, immutable, Accept-Encoding, application/wasm",
				tc.accept, rec.Code, hd.Get("Content-Encoding"), rec.Body.Len(), hd.Get("Cache-Control"), hd.Get("Vary"), hd.Get("Content-Type"), tc.enc, len(tc.want))
		}
		if again := h.do("GET", "/"+name, "", "", "Accept-Encoding", tc.accept, "If-None-Match", hd.Get("ETag")); again.Code != 304 || again.Body.Len() != 0 {
			t.Errorf("Accept-Encoding %q, If-None-Match %s: %d with %d bytes, want 304 and none", tc.accept, hd.Get("ETag"), again.Code, again.Body.Len())
		}
	}
	for _, p := range []string{"/" + name + ".br", "/" + name + ".gz"} {
		if rec := h.do("GET", p, "", ""); rec.Code != 404 {
			t.Errorf("GET %s: %d, want 404 (sent only by negotiation)", p, rec.Code)
		}
	}
	// The .br that is not smaller is ignored: brotli made from the file.
	rec := h.do("GET", "/assets/index-Ab3x_9aZ.css", "", "", "Accept-Encoding", "br")
	if got, err := io.ReadAll(brotli.NewReader(rec.Body)); rec.Header().Get("Content-Encoding") != "br" || err != nil || !bytes.Equal(got, css) {
		t.Errorf("css with a useless .br: Content-Encoding %q, decoded %d bytes (%v); want br of the file's %d", rec.Header().Get("Content-Encoding"), len(got), err, len(css))
	}
	// index.html: revalidated every time, 304 to its ETag, 200 to another.
	idx := h.do("GET", "/", "", "")
	etag := idx.Header().Get("ETag")
	if idx.Code != 200 || etag == "" || idx.Header().Get("Cache-Control") != "no-cache" {
		t.Fatalf("GET /: %d, ETag %q, Cache-Control %q; want 200, a tag, no-cache", idx.Code, etag, idx.Header().Get("Cache-Control"))
	}
	if rec := h.do("GET", "/", "", "", "If-None-Match", etag); rec.Code != 304 {
		t.Errorf("GET / If-None-Match %s: %d, want 304", etag, rec.Code)
	}
	if rec := h.do("GET", "/", "", "", "If-None-Match", `"stale"`); rec.Code != 200 {
		t.Errorf("GET / If-None-Match \"stale\": %d, want 200", rec.Code)
	}
}
