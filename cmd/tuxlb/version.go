package main

import (
	"fmt"
	"io"
	"runtime"

	"github.com/tuxlb/tuxlb/core"
)

func init() {
	commands["version"] = command{
		summary: "print the engine version (results record it too)",
		run: func(args []string, _ io.Reader, stdout, stderr io.Writer) int {
			if len(args) != 0 {
				fmt.Fprintln(stderr, "usage: tuxlb version")
				return 2
			}
			fmt.Fprintf(stdout, "tuxlb engine %s (%s)\n", core.EngineVersion, runtime.Version())
			return 0
		},
	}
}
