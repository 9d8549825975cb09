package diag

import (
	"errors"
	"sort"
	"testing"
)

func TestErrorListSortsAndPrints(t *testing.T) {
	l := ErrorList{
		{File: "b.ubb", Line: 1, Col: 1, Severity: SeverityError, Message: "x"},
		{File: "a.ubb", Line: 3, Col: 2, Severity: SeverityError, Message: "z"},
		{File: "a.ubb", Line: 3, Col: 2, Severity: SeverityError, Message: "y"},
		{File: "a.ubb", Line: 2, Col: 9, Severity: SeverityWarning, Message: "w"},
	}
	sorted := append(ErrorList(nil), l...)
	sort.Sort(sorted)
	want := "a.ubb:2:9: warning: w\na.ubb:3:2: y\na.ubb:3:2: z\nb.ubb:1:1: x"
	if got := sorted.Error(); got != want {
		t.Errorf("sort.Sort then Error():\ngot  %q\nwant %q", got, want)
	}
	l.Sort()
	if got := l.Error(); got != want {
		t.Errorf("Sort then Error():\ngot  %q\nwant %q", got, want)
	}
	if err := (ErrorList{}).Err(); err != nil {
		t.Errorf("empty list: Err() = %v, want nil", err)
	}
	var got ErrorList
	if !errors.As(l.Err(), &got) || len(got) != 4 {
		t.Errorf("Err() = %v, want the list itself", l.Err())
	}
}
