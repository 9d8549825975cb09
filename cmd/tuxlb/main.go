// Command tuxlb simulates Oracle Tuxedo's load balancing: it validates
// UBBCONFIG files, runs scenarios, and serves the REST API and the playground.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/tuxlb/tuxlb/pool"
)

// command is one subcommand: it parses its own flags and returns an exit code.
type command struct {
	summary string
	run     func(args []string, stdin io.Reader, stdout, stderr io.Writer) int
	// sub names the command's own subcommands (sweep merge): help asked
	// after one is that subcommand's.
	sub []string
}

// commands is filled by the init functions of the subcommand files.
var commands = map[string]command{}

func main() {
	// The batch commands trade a little memory for less collector time
	// (pool.GCPercent); the server keeps Go's default, its memory budget
	// (docs/api.md) being counted against the live heap.
	if len(os.Args) < 2 || os.Args[1] != "serve" {
		pool.TuneGC()
		limitMemory = true
	}
	os.Exit(Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// Main runs tuxlb with args and returns its exit code; tests call it directly.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 && (args[0] == "--version" || args[0] == "-version") {
		args = []string{"version"}
	}
	if len(args) == 0 {
		usage(stderr)
		return 2
	}
	if isHelp(args[0]) || args[0] == "help" && len(args) == 1 {
		usage(stdout)
		return 0
	}
	name, help := args[0], false
	if name == "help" {
		if len(args) > 2 {
			fmt.Fprintln(stderr, "usage: tuxlb help [COMMAND]")
			return 2
		}
		name, help = args[1], true
	}
	cmd, ok := commands[name]
	if !ok {
		fmt.Fprintf(stderr, "tuxlb: unknown command %q\n", name)
		usage(stderr)
		return 2
	}
	if help || asksHelp(args[1:]) {
		// The command's (or its subcommand's) usage and flags, on standard
		// output since they were asked for; exit 0 whatever the command
		// says of -h.
		ask := []string{"-h"}
		if rest := args[1:]; len(rest) > 1 && slices.Contains(cmd.sub, rest[0]) {
			ask = []string{rest[0], "-h"}
		}
		cmd.run(ask, stdin, stdout, stdout)
		return 0
	}
	return cmd.run(args[1:], stdin, stdout, stderr)
}

// isHelp says whether arg asks for help.
func isHelp(arg string) bool {
	return arg == "-h" || arg == "-help" || arg == "--help"
}

// asksHelp says whether a command's arguments ask for help: -h, -help or
// --help among them, before any "--".
func asksHelp(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if isHelp(a) {
			return true
		}
	}
	return false
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: tuxlb COMMAND [flags] [args]\n\ncommands:")
	names := make([]string, 0, len(commands))
	width := 0
	for name := range commands {
		names = append(names, name)
		width = max(width, len(name))
	}
	sort.Strings(names)
	for _, name := range names {
		fmt.Fprintf(w, "  %-*s %s\n", width, name, commands[name].summary)
	}
	fmt.Fprintln(w, "\nRun 'tuxlb help COMMAND' or 'tuxlb COMMAND --help' for a command's flags.")
}

// parseFlags is fs.Parse(args) after onceEach's check, whose error it
// prints on fs's output as the flag package prints its own.
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := onceEach(fs, args); err != nil {
		fmt.Fprintf(fs.Output(), "tuxlb %s: %v\n", fs.Name(), err)
		return err
	}
	return fs.Parse(args)
}

// onceEach refuses a flag that takes one value given twice with different
// values (--seed 1 --seed 2, --trace-map time=a --trace-map service=b):
// the flag package keeps the last and drops the first without a word. A
// flag of a list (--vary, --ulog, --objective) repeats; the same value
// twice is no contradiction. args are read as the flag package reads
// them, flags anywhere before "--".
func onceEach(fs *flag.FlagSet, args []string) error {
	seen := map[string]string{}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		if len(a) < 2 || a[0] != '-' {
			continue
		}
		name, value, hasValue := strings.Cut(strings.TrimPrefix(a[1:], "-"), "=")
		f := fs.Lookup(name)
		if f == nil {
			continue // the flag package says it is unknown
		}
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
			if !hasValue {
				value = "true"
			}
		} else if !hasValue {
			if i+1 == len(args) {
				continue // the flag package says it needs a value
			}
			i++
			value = args[i]
		}
		if t := reflect.TypeOf(f.Value); t.Kind() == reflect.Pointer && t.Elem().Kind() == reflect.Slice {
			continue
		}
		if prev, ok := seen[name]; ok && prev != value {
			return fmt.Errorf("--%s given twice, as %q and as %q: give it once", name, prev, value)
		}
		seen[name] = value
	}
	return nil
}
