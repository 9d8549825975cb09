package psc

import "testing"

// FuzzRead feeds any text to the tmadmin printservice reader: it must never
// panic, and a table it reads gives every row a service name.
func FuzzRead(f *testing.F) {
	f.Add("Service Name Routine Name Prog Name  Grp Name  ID    Machine  # Done Status\n" +
		"------------ ------------ ---------  --------  --    -------  ------ ------\n" +
		"TOUPPER      TOUPPER      simpserv   GROUP1     1    SITE1         0 AVAIL\n")
	f.Add("Service Name: TOUPPER\nService Type: USER\nRoutine Name: TOUPPER\nProg Name: simpserv\nGroup ID: GROUP1\nMachine ID: SITE1\n")
	f.Fuzz(func(t *testing.T, text string) {
		rows, err := Read(text)
		if err != nil {
			return
		}
		for i, r := range rows {
			if r.Service == "" {
				t.Fatalf("row %d has no service: %+v", i, r)
			}
		}
	})
}
