package ubb

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const samplesDir = "../../testdata/tuxedo-configs"

// negativeSamples are the files SOURCES.md marks NEGATIVE, with the first
// diagnostic each must produce.
var negativeSamples = map[string]string{
	"Setofnosets__Tuxedo1__ubbconfig.ubb": "Setofnosets__Tuxedo1__ubbconfig.ubb:25:22: " +
		"malformed TUXCONFIG=TUXCONFIG=...: expected one value per KEY=value (quote values that contain '=')",
	"endurox-dev__endurox__atmitest__test090_tuxmig__ubb_config1.ubb": "endurox-dev__endurox__atmitest__test090_tuxmig__ubb_config1.ubb:95:23: " +
		"duplicate server ADMINGRP/10: SRVID 10 of this entry (line 94) overlaps SRVID 10 of TMSYSEVT (line 87) in group ADMINGRP",
	"endurox-dev__endurox__atmitest__test090_tuxmig__ubb_network.ubb": "endurox-dev__endurox__atmitest__test090_tuxmig__ubb_network.ubb:90:1: " +
		"duplicate group name SITE5_GRP (first at line 87)",
	"endurox-dev__endurox__atmitest__test090_tuxmig__ubb_syntax_err1.ubb": "endurox-dev__endurox__atmitest__test090_tuxmig__ubb_syntax_err1.ubb:6:17: " +
		"unexpected '=' after SOME_SETTING ABC: lines of *RESOURCES are KEYWORD value",
	"endurox-dev__endurox__atmitest__test090_tuxmig__ubb_syntax_err2.ubb": "endurox-dev__endurox__atmitest__test090_tuxmig__ubb_syntax_err2.ubb:4:1: " +
		"the first section must be *RESOURCES, found *SERVERS",
	"endurox-dev__endurox__atmitest__test090_tuxmig__ubb_syntax_err3.ubb": "endurox-dev__endurox__atmitest__test090_tuxmig__ubb_syntax_err3.ubb:12:12: " +
		"duplicate GRPNO 1 (first at line 11)",
	"endurox-dev__endurox__atmitest__test090_tuxmig__ubb_syntax_err4.ubb": "endurox-dev__endurox__atmitest__test090_tuxmig__ubb_syntax_err4.ubb:12:20: " +
		"unterminated quoted string: expected a closing '\"' (a quoted value may run over 1000 lines at most)",
	"mdafsar15__Tuxedo__ubbsimple.txt.ubb": "mdafsar15__Tuxedo__ubbsimple.txt.ubb:1:1: " +
		"expected *RESOURCES before \"dc.genx.com.\"",
}

// TestSamples loads every real UBBCONFIG: the good ones must match their
// golden model, the NEGATIVE ones must fail with the expected first error.
func TestSamples(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(samplesDir, "*.ubb"))
	if err != nil || len(files) != 57 {
		t.Fatalf("got %d samples (%v), want the 57 of SOURCES.md", len(files), err)
	}
	for _, path := range files {
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			m, err := Load(Input{UBBName: name, UBBConfig: string(data)})
			golden := filepath.Join("testdata", "model", strings.TrimSuffix(name, ".ubb"))
			if want, negative := negativeSamples[name]; negative {
				if err == nil {
					t.Fatalf("got a model, want error %q", want)
				}
				diags := diagnosticsOf(t, err)
				if got := diags[0].String(); got != want {
					t.Errorf("first error:\ngot  %s\nwant %s", got, want)
				}
				checkGolden(t, golden+".err", []byte(err.Error()+"\n"))
				return
			}
			if err != nil {
				t.Fatalf("got error:\n%v", err)
			}
			out, _ := json.MarshalIndent(m, "", "  ")
			checkGolden(t, golden+".json", append(out, '\n'))
		})
	}
}

// diagnosticsOf returns the diagnostics of a non-empty ErrorList.
func diagnosticsOf(t *testing.T, err error) ErrorList {
	t.Helper()
	var list ErrorList
	if !errors.As(err, &list) || len(list) == 0 {
		t.Fatalf("got error %#v, want a non-empty ErrorList", err)
	}
	return list
}

func TestWarningsAreCapped(t *testing.T) {
	var b strings.Builder
	b.WriteString("*RESOURCES\nMODEL SHM\n")
	for i := 0; i < 150; i++ {
		fmt.Fprintf(&b, "UNKNOWN%d 1\n", i)
	}
	b.WriteString("*MACHINES\nm LMID=a\n")
	m := mustLoad(t, b.String())
	if got := len(m.Warnings); got != maxDiagnostics+1 {
		t.Fatalf("got %d warnings, want %d", got, maxDiagnostics+1)
	}
	if got, want := m.Warnings[maxDiagnostics].String(), "t.ubb: warning: 50 more warnings not shown"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
