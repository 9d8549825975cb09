package core

// LoadModel parses a UBBCONFIG (and an optional DMCONFIG, "" for none) and
// builds the Model of SPEC §2. advertise is the scenario's advertise map (nil
// for none). File names are used in diagnostics only. The error is an *Error
// with Diagnostics positioned at FILE:LINE:COL.
func LoadModel(ubbName, ubb, dmName, dm string, advertise map[string][]string) (*Model, error) {
	return nil, Errorf(EINTERNAL, "parser not implemented yet")
}
