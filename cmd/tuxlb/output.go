package main

import (
	"errors"
	"fmt"
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

// input is a file a command reads, and the flag (or argument) naming it.
type input struct{ name, path string }

// notAnInput refuses an output path that is one of the command's inputs,
// whatever path names it (a link, ./x and x): writing it would replace the
// log or configuration the command reads, which cannot be had back. An
// output that is not an existing regular file (new, a pipe, /dev/stdout)
// and standard input ("-") are not compared.
func notAnInput(flag, out string, inputs ...input) error {
	if out == "" || out == "-" {
		return nil
	}
	fo, err := os.Stat(out)
	if err != nil || !fo.Mode().IsRegular() {
		return nil
	}
	for _, in := range inputs {
		if in.path == "" || in.path == "-" {
			continue
		}
		if fi, err := os.Stat(in.path); err == nil && os.SameFile(fo, fi) {
			also := ""
			if in.path != out { // another path to it (a link, ./x): name both
				also = " " + in.path
			}
			return fmt.Errorf("%s: %s is the %s file%s: writing it would replace that file; give another FILE", flag, out, in.name, also)
		}
	}
	return nil
}

// inputs lists the files of the file flags, for notAnInput.
func (f *fileFlags) inputs() []input {
	return []input{{"--ubbconfig", f.ubbconfig}, {"--dmconfig", f.dmconfig}, {"--trace", f.trace}, {"--psc", f.psc}}
}

// checkInputs checks the files of the flags and the --ulog files a command
// reads: at most one of them is standard input (stdinOnce), and out, the
// --out file it writes, is none of them (notAnInput).
func (f *fileFlags) checkInputs(ulogs []string, out string) error {
	ins := ulogInputs(f.inputs(), ulogs)
	paths, names := make([]string, len(ins)), make([]string, len(ins))
	for i, in := range ins {
		paths[i], names[i] = in.path, in.name
	}
	if err := stdinOnce(paths, names); err != nil {
		return err
	}
	return notAnInput("--out", out, ins...)
}

// ulogInputs adds the --ulog files to ins.
func ulogInputs(ins []input, ulogs []string) []input {
	for _, u := range ulogs {
		ins = append(ins, input{"--ulog", u})
	}
	return ins
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
		return nil, userPath(err, path)
	}
	if err := f.Chmod(mode); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, userPath(err, path)
	}
	return &outputFile{path: path, f: f, temp: true}, nil
}

// Write writes to the file.
func (o *outputFile) Write(p []byte) (int, error) {
	n, err := o.f.Write(p)
	return n, o.named(err)
}

// commit closes the file and, for a temporary file, renames it over path.
func (o *outputFile) commit() error {
	if err := o.f.Close(); err != nil {
		o.discard()
		return o.named(err)
	}
	if o.temp {
		if err := os.Rename(o.f.Name(), o.path); err != nil {
			os.Remove(o.f.Name())
			return o.named(err)
		}
	}
	return nil
}

// named is err with the path the user gave in place of the temporary
// file's, which the user never named and which is gone once it fails.
func (o *outputFile) named(err error) error {
	if err == nil || !o.temp {
		return err
	}
	return userPath(err, o.path)
}

// userPath is err, an error of the file system about the temporary file
// beside path (or about the rename over it), naming path instead.
func userPath(err error, path string) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return &os.PathError{Op: pe.Op, Path: path, Err: pe.Err}
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return &os.PathError{Op: le.Op, Path: path, Err: le.Err}
	}
	return err
}

// discard closes the file and removes the temporary file, if any: never
// the file at path.
func (o *outputFile) discard() {
	o.f.Close()
	if o.temp {
		os.Remove(o.f.Name())
	}
}
