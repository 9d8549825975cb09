package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/tuxlb/tuxlb/core"
)

func init() {
	commands["version"] = command{
		summary: "print the engine version (results record it too), the module version and the VCS revision",
		run: func(args []string, _ io.Reader, stdout, stderr io.Writer) int {
			if len(args) != 0 {
				fmt.Fprintln(stderr, "usage: tuxlb version")
				return 2
			}
			bi, _ := debug.ReadBuildInfo()
			fmt.Fprint(stdout, versionText(bi))
			return 0
		},
	}
}

// versionText is what `tuxlb version` prints: the engine version and Go's on
// the first line, then the module's version and the VCS revision the binary
// was built from, with "(modified)" when the work tree had changes. bi is
// nil when the binary carries no build information.
func versionText(bi *debug.BuildInfo) string {
	var b strings.Builder
	fmt.Fprintf(&b, "tuxlb engine %s (%s)\n", core.EngineVersion, runtime.Version())
	if bi == nil {
		b.WriteString("module: unknown (no build information)\nrevision: unknown\n")
		return b.String()
	}
	version := bi.Main.Version
	if version == "" {
		version = "(devel)"
	}
	fmt.Fprintf(&b, "module: %s %s\n", bi.Main.Path, version)
	var rev, when, modified string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			when = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	switch {
	case rev == "":
		b.WriteString("revision: unknown (built without VCS information)\n")
	default:
		b.WriteString("revision: " + rev)
		if when != "" {
			b.WriteString(" (" + when + ")")
		}
		if modified == "true" {
			b.WriteString(", modified")
		} else if modified == "false" {
			b.WriteString(", clean")
		}
		b.WriteString("\n")
	}
	return b.String()
}
