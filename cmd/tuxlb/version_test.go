package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/tuxlb/tuxlb/core"
)

func TestVersionCommand(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}} {
		var out, errb bytes.Buffer
		if code := Main(args, nil, &out, &errb); code != 0 || !strings.Contains(out.String(), "tuxlb engine "+core.EngineVersion) {
			t.Errorf("%v: exit %d, stdout %q", args, code, out.String())
		}
	}
}
