package diag

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Severities of a Diagnostic.
const (
	SeverityError   = "error"
	SeverityWarning = "warning"
)

// Sources of a Diagnostic: which input it is about.
const (
	SourceUBBConfig = "ubbconfig"
	SourceDMConfig  = "dmconfig"
	SourceScenario  = "scenario"
	SourceTrace     = "trace"
	SourceOptions   = "options" // a run option given beside the scenario (a policy, a seed)
	SourceULOG      = "ulog"    // ULOG files read for a fit (their messages name the file)
)

// Diagnostic is one positioned message about an input: an error, or a
// warning the run goes on with. Source is the input (SourceUBBConfig...),
// File the name it was given under (a path, a form part's file name, or
// the source itself); Line and Col are 1-based (Col counts characters; a
// tab is one), 0 meaning unknown; Field is the field path of a problem
// with a field of a document (services.A.service_time), or the column of a
// trace row (Line is then the row).
type Diagnostic struct {
	Source   string `json:"source,omitempty"`
	File     string `json:"file"`
	Line     int    `json:"line"`
	Col      int    `json:"col"`
	Field    string `json:"field,omitempty"`
	Severity string `json:"severity"` // SeverityError or SeverityWarning
	Message  string `json:"message"`
}

// String formats d as FILE:LINE:COL: message, the form editors and
// compilers use, or FIELD: message for a field of a document.
func (d Diagnostic) String() string {
	var b strings.Builder
	if d.File == "" && d.Line == 0 && d.Field != "" {
		b.WriteString(d.Field)
		b.WriteString(": ")
		b.WriteString(d.Message)
		return b.String()
	}
	b.WriteString(d.File)
	if d.Line > 0 {
		fmt.Fprintf(&b, ":%d", d.Line)
		if d.Col > 0 {
			fmt.Fprintf(&b, ":%d", d.Col)
		}
	}
	b.WriteString(": ")
	if d.Severity == SeverityWarning {
		b.WriteString("warning: ")
	}
	b.WriteString(d.Message)
	return b.String()
}

// ErrorList is a list of diagnostics, in the manner of go/scanner.ErrorList:
// Load returns one as its error. It sorts by file, line, column and message
// (sort.Sort or Sort); Load itself keeps the order documented there.
type ErrorList []Diagnostic

// Len, Swap and Less make an ErrorList a sort.Interface.
func (l ErrorList) Len() int { return len(l) }

// Swap exchanges two diagnostics.
func (l ErrorList) Swap(i, j int) { l[i], l[j] = l[j], l[i] }

// Less orders by file, line, column, then message.
func (l ErrorList) Less(i, j int) bool { return compareDiagnostics(l[i], l[j]) < 0 }

// Sort sorts the list by file, line, column, then message.
func (l ErrorList) Sort() { slices.SortStableFunc(l, compareDiagnostics) }

func compareDiagnostics(a, b Diagnostic) int {
	return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line),
		cmp.Compare(a.Col, b.Col), cmp.Compare(a.Message, b.Message))
}

// Error returns every diagnostic as FILE:LINE:COL: message, one per line.
func (l ErrorList) Error() string {
	lines := make([]string, len(l))
	for i, d := range l {
		lines[i] = d.String()
	}
	return strings.Join(lines, "\n")
}

// Err returns l as an error, or nil when l is empty.
func (l ErrorList) Err() error {
	if len(l) == 0 {
		return nil
	}
	return l
}
