package main

import (
	"fmt"
	"io"
	"os"

	"github.com/tuxlb/tuxlb/core"
)

// maxScenarioBytes bounds a scenario file read by the CLI.
const maxScenarioBytes = 256 << 20

// readScenario reads and parses a scenario file; "-" reads standard input.
// Errors name the file.
func readScenario(path string, stdin io.Reader) (*core.Scenario, error) {
	var data []byte
	var err error
	if path == "-" {
		data, err = io.ReadAll(io.LimitReader(stdin, maxScenarioBytes+1))
		path = "<stdin>"
	} else {
		var f *os.File
		f, err = os.Open(path)
		if err == nil {
			data, err = io.ReadAll(io.LimitReader(f, maxScenarioBytes+1))
			f.Close()
		}
	}
	if err != nil {
		return nil, fmt.Errorf("read scenario: %w", err)
	}
	if len(data) > maxScenarioBytes {
		return nil, fmt.Errorf("%s: larger than %d MiB", path, maxScenarioBytes>>20)
	}
	sc, err := core.ParseScenario(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return sc, nil
}
