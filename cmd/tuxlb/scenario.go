package main

import (
	"fmt"
	"io"
	"os"
)

// maxScenarioBytes bounds a scenario file read by the CLI.
const maxScenarioBytes = 256 << 20

// displayName is how errors name a scenario file.
func displayName(path string) string {
	if path == "-" {
		return "<stdin>"
	}
	return path
}

// readScenarioData reads a scenario file's bytes; "-" reads standard input.
func readScenarioData(path string, stdin io.Reader) ([]byte, error) {
	var data []byte
	var err error
	if path == "-" {
		data, err = io.ReadAll(io.LimitReader(stdin, maxScenarioBytes+1))
	} else {
		// A regular file is read into one buffer of its size (io.ReadAll
		// would grow one by a quarter at a time, allocating several times
		// a large file's size on the way).
		if fi, serr := os.Stat(path); serr == nil && fi.Mode().IsRegular() && fi.Size() <= maxScenarioBytes {
			data, err = os.ReadFile(path)
		} else {
			var f *os.File
			f, err = os.Open(path)
			if err == nil {
				data, err = io.ReadAll(io.LimitReader(f, maxScenarioBytes+1))
				f.Close()
			}
		}
	}
	if err != nil {
		return nil, fmt.Errorf("read scenario: %w", err)
	}
	if len(data) > maxScenarioBytes {
		return nil, fmt.Errorf("%s: larger than %d MiB", displayName(path), maxScenarioBytes>>20)
	}
	if err := notUTF16(string(data[:min(len(data), 2)]), displayName(path)); err != nil {
		return nil, err
	}
	return data, nil
}
