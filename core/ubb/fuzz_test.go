package ubb

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzLoad feeds arbitrary UBBCONFIG/DMCONFIG text to Load: it must never
// panic or hang, and its result must be consistent (a model, or an ErrorList
// of positioned diagnostics). Seeds: the real samples.
func FuzzLoad(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join(samplesDir, "*.ubb"))
	more, _ := filepath.Glob(filepath.Join("testdata", "dmconfig", "*.ubb"))
	for _, path := range append(files, more...) {
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		dm, _ := os.ReadFile(strings.TrimSuffix(path, ".ubb") + ".dm")
		f.Add(string(data), string(dm))
	}
	f.Fuzz(func(t *testing.T, ubb, dm string) {
		m, err := Load(Input{UBBName: "f.ubb", UBBConfig: ubb, DMName: "f.dm", DMConfig: dm, Advertise: map[string][]string{"simpserv": {"TOUPPER"}}})
		if err != nil {
			diags, _ := err.(ErrorList)
			if len(diags) == 0 {
				t.Fatalf("error without diagnostics: %#v", err)
			}
			for _, d := range diags {
				if d.Line < 1 || d.Col < 1 || (d.File != "f.ubb" && d.File != "f.dm") {
					t.Fatalf("badly positioned diagnostic %+v", d)
				}
			}
			return
		}
		checkModel(t, m)
		// The editor on the same text: setting LDBAL never panics, and
		// what it returns loads with LDBAL Y.
		ldbal := Change{Section: "RESOURCES", Key: "LDBAL", Value: "Y"}
		if out, err := Edit(ubb, ldbal); err == nil {
			if m2, err := Load(Input{UBBConfig: out}); err != nil || !m2.LDBAL {
				t.Fatalf("edited text: LDBAL %v, error %v", m2 != nil && m2.LDBAL, err)
			}
		}
	})
}

// checkModel checks the invariants every Model must hold.
func checkModel(t *testing.T, m *Model) {
	t.Helper()
	if m.Model != "SHM" && m.Model != "MP" {
		t.Fatalf("model %q", m.Model)
	}
	if len(m.Servers) > maxInstances {
		t.Fatalf("%d instances", len(m.Servers))
	}
	for i, s := range m.Servers {
		if s.Machine < 0 || s.Machine >= len(m.Machines) || s.QueueIdx < 0 || s.QueueIdx >= len(m.Queues) {
			t.Fatalf("server %d has machine %d queue %d", i, s.Machine, s.QueueIdx)
		}
		for _, name := range s.Services {
			if m.Service(name) == nil {
				t.Fatalf("server %s advertises unknown service %q", s.ID, name)
			}
		}
	}
	for i := 1; i < len(m.Services); i++ {
		if m.Services[i-1].Name >= m.Services[i].Name {
			t.Fatalf("services not sorted: %q then %q", m.Services[i-1].Name, m.Services[i].Name)
		}
	}
	for _, q := range m.Queues {
		if len(q.Servers) == 0 {
			t.Fatalf("queue %s without servers", q.Name)
		}
	}
}
