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
