package main

import (
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
)

// gzipMagic is the first two bytes of a gzip file.
var gzipMagic = [2]byte{0x1f, 0x8b}

// ungzipped is r's text: r itself, or, when r starts as a gzip file does
// (a log or ULOG compressed by a rotation job, export.csv.gz), what it
// decompresses to. A regular file is looked at in place; anything else
// through a buffer.
func ungzipped(r io.Reader, name string) (io.Reader, error) {
	if f, ok := r.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
			var m [2]byte
			if n, _ := f.ReadAt(m[:], 0); n < 2 || m != gzipMagic {
				return r, nil
			}
			return gunzip(f, name)
		}
	}
	br := bufio.NewReader(r)
	if m, _ := br.Peek(2); len(m) < 2 || [2]byte(m) != gzipMagic {
		return br, nil
	}
	return gunzip(br, name)
}

func gunzip(r io.Reader, name string) (io.Reader, error) {
	zr, err := gzip.NewReader(r)
	if err != nil {
		return nil, fmt.Errorf("%s: gzip: %w", name, err)
	}
	return gzipText{zr}, nil
}

// gzipText is a gzip stream's text; the end of a stream cut short is an
// error of its own, not the end of the text.
type gzipText struct{ *gzip.Reader }

func (g gzipText) Read(p []byte) (int, error) {
	n, err := g.Reader.Read(p)
	if errors.Is(err, io.ErrUnexpectedEOF) {
		err = errGzipShort
	}
	return n, err
}

var errGzipShort = errors.New("the gzip data ends short of its end (a file cut short, or copied while written)")

// openGzip opens a gzipped file as its text.
func openGzip(path string) (io.ReadCloser, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	zr, err := gzip.NewReader(fh)
	if err != nil {
		fh.Close()
		return nil, err
	}
	return gzipFile{gzipText{zr}, fh}, nil
}

type gzipFile struct {
	gzipText
	f *os.File
}

func (g gzipFile) Close() error { g.Reader.Close(); return g.f.Close() }
