package main

import (
	"os"
	"path/filepath"
)

// readFileBounded reads at most limit bytes of path: a larger file (or an
// endless device) is an error naming the file.
func readFileBounded(path string, limit int64) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	return readBounded(f, path, limit)
}

// outputFile is a file the CLI writes a result into. A regular file (new or
// existing) is written to a temporary file beside it and renamed over it only
// when the run succeeds: a failed run leaves an existing file as it was and
// creates nothing. Anything else (/dev/stdout, a pipe) is written in place
// and never removed.
type outputFile struct {
	path string
	f    *os.File
	temp bool
}

// createOutput opens path for writing as outputFile says.
func createOutput(path string) (*outputFile, error) {
	fi, err := os.Stat(path)
	switch {
	case err == nil && !fi.Mode().IsRegular():
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return nil, err
		}
		return &outputFile{path: path, f: f}, nil
	case err != nil && !os.IsNotExist(err):
		return nil, err
	}
	mode := os.FileMode(0o644)
	if err == nil {
		mode = fi.Mode().Perm()
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return nil, err
	}
	if err := f.Chmod(mode); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	return &outputFile{path: path, f: f, temp: true}, nil
}

// Write writes to the file.
func (o *outputFile) Write(p []byte) (int, error) { return o.f.Write(p) }

// commit closes the file and, for a temporary file, renames it over path.
func (o *outputFile) commit() error {
	if err := o.f.Close(); err != nil {
		o.discard()
		return err
	}
	if o.temp {
		if err := os.Rename(o.f.Name(), o.path); err != nil {
			os.Remove(o.f.Name())
			return err
		}
	}
	return nil
}

// discard closes the file and removes the temporary file, if any: never
// the file at path.
func (o *outputFile) discard() {
	o.f.Close()
	if o.temp {
		os.Remove(o.f.Name())
	}
}
