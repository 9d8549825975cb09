package main

import (
	"bytes"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"
)

func init() {
	commands["completion"] = command{
		summary: "print a shell completion script: tuxlb completion bash|zsh",
		run:     runCompletion,
	}
}

// runCompletion prints the completion script of a shell: commands, and each
// command's flags as its --help lists them.
func runCompletion(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 1 && isHelp(args[0]) {
		fmt.Fprintln(stderr, "usage: tuxlb completion bash|zsh")
		fmt.Fprintln(stderr, "  bash: source <(tuxlb completion bash)   (or save it as /etc/bash_completion.d/tuxlb)")
		fmt.Fprintln(stderr, "  zsh:  tuxlb completion zsh > \"${fpath[1]}/_tuxlb\"   (then compinit)")
		return 0
	}
	if len(args) != 1 || (args[0] != "bash" && args[0] != "zsh") {
		fmt.Fprintln(stderr, "usage: tuxlb completion bash|zsh")
		return 2
	}
	flags := commandFlags()
	names := make([]string, 0, len(commands))
	for name := range commands {
		names = append(names, name)
	}
	sort.Strings(names)
	if args[0] == "bash" {
		fmt.Fprint(stdout, bashCompletion(names, flags))
	} else {
		fmt.Fprint(stdout, zshCompletion(names, flags))
	}
	return 0
}

// flagLine is a flag as flag.PrintDefaults prints it: "  -name" then a
// value name or the end of the line.
var flagLine = regexp.MustCompile(`(?m)^  -([A-Za-z0-9][A-Za-z0-9-]*)`)

// commandFlags lists each command's flags (as --name), read from its help,
// and each subcommand's under "command sub" (sweep merge).
func commandFlags() map[string][]string {
	out := map[string][]string{}
	for name, cmd := range commands {
		if name != "completion" && name != "version" {
			out[name] = helpFlags(cmd, nil)
		} else {
			out[name] = []string{"--help"}
		}
		for _, sub := range cmd.sub {
			out[name+" "+sub] = helpFlags(cmd, []string{sub})
		}
	}
	return out
}

// helpFlags is --help and the flags cmd's help lists, after args.
func helpFlags(cmd command, args []string) []string {
	var b bytes.Buffer
	cmd.run(append(args, "-h"), nil, &b, &b)
	flags := []string{"--help"}
	for _, m := range flagLine.FindAllStringSubmatch(b.String(), -1) {
		flags = append(flags, "--"+m[1])
	}
	return flags
}

func bashCompletion(names []string, flags map[string][]string) string {
	var b strings.Builder
	b.WriteString("# bash completion for tuxlb: source <(tuxlb completion bash)\n_tuxlb() {\n")
	b.WriteString("  local cur=\"${COMP_WORDS[COMP_CWORD]}\"\n")
	b.WriteString("  if [ \"$COMP_CWORD\" -eq 1 ]; then\n")
	fmt.Fprintf(&b, "    COMPREPLY=($(compgen -W %q -- \"$cur\"))\n    return\n  fi\n", strings.Join(append([]string{"help"}, names...), " "))
	b.WriteString("  local cmd=\"${COMP_WORDS[1]}\" words=\"\" subs=\"\"\n  case \"$cmd\" in\n")
	for _, n := range names {
		if n == "completion" {
			continue
		}
		fmt.Fprintf(&b, "    %s) words=%q", n, strings.Join(flags[n], " "))
		if subs := commands[n].sub; len(subs) > 0 {
			// a subcommand, first after the command, has flags of its own
			fmt.Fprintf(&b, "; subs=%q\n      case \"${COMP_WORDS[2]}\" in\n", strings.Join(subs, " "))
			for _, sub := range subs {
				fmt.Fprintf(&b, "        %s) words=%q; subs=\"\" ;;\n", sub, strings.Join(flags[n+" "+sub], " "))
			}
			b.WriteString("      esac")
		}
		b.WriteString(" ;;\n")
	}
	fmt.Fprintf(&b, "    help) words=%q ;;\n", strings.Join(names, " "))
	b.WriteString("    completion) words=\"bash zsh\" ;;\n  esac\n")
	b.WriteString("  if [[ \"$cur\" == -* || \"$cmd\" == help || \"$cmd\" == completion ]]; then\n")
	b.WriteString("    COMPREPLY=($(compgen -W \"$words\" -- \"$cur\"))\n  else\n    COMPREPLY=($(compgen -f -- \"$cur\"))\n")
	b.WriteString("    if [ \"$COMP_CWORD\" -eq 2 ] && [ -n \"$subs\" ]; then\n      COMPREPLY+=($(compgen -W \"$subs\" -- \"$cur\"))\n    fi\n  fi\n}\n")
	b.WriteString("complete -o filenames -F _tuxlb tuxlb\n")
	return b.String()
}

func zshCompletion(names []string, flags map[string][]string) string {
	var b strings.Builder
	b.WriteString("#compdef tuxlb\n# zsh completion for tuxlb: tuxlb completion zsh > \"${fpath[1]}/_tuxlb\"\n_tuxlb() {\n")
	b.WriteString("  local -a cmds\n  cmds=(\n")
	for _, n := range names {
		fmt.Fprintf(&b, "    %s\n", zshQuote(n+":"+commands[n].summary))
	}
	b.WriteString("    'help:print a command'\\''s flags'\n  )\n")
	b.WriteString("  if (( CURRENT == 2 )); then\n    _describe command cmds\n    return\n  fi\n")
	b.WriteString("  case $words[2] in\n")
	for _, n := range names {
		if n == "completion" {
			continue
		}
		for _, sub := range commands[n].sub {
			fmt.Fprintf(&b, "    %s) if [[ $words[3] == %s ]]; then\n      _arguments -S", n, sub)
			for _, f := range flags[n+" "+sub] {
				fmt.Fprintf(&b, " '%s'", f)
			}
			b.WriteString(" '*:file:_files'\n      return\n    fi ;|\n")
		}
		fmt.Fprintf(&b, "    %s) _arguments -S", n)
		for _, f := range flags[n] {
			fmt.Fprintf(&b, " '%s'", f)
		}
		if subs := commands[n].sub; len(subs) > 0 {
			// right after the command (words[3]), its subcommands too
			fmt.Fprintf(&b, " '*:file:{ (( CURRENT == 3 )) && compadd -- %s; _files }' ;;\n", strings.Join(subs, " "))
			continue
		}
		b.WriteString(" '*:file:_files' ;;\n")
	}
	b.WriteString("    completion) _values shell bash zsh ;;\n")
	b.WriteString("    help) _describe command cmds ;;\n  esac\n}\n_tuxlb \"$@\"\n")
	return b.String()
}

// zshQuote single-quotes s for zsh.
func zshQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
