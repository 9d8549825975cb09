package core

import "fmt"

// editUBB sets one keyword of a UBBCONFIG text and returns the new text. key
// is LDBAL, MODEL, SERVERS.<name>[@<group>].MIN|MAX, SERVICES.<name>.LOAD|PRIO
// or MACHINES.<lmid>.NETLOAD. It is the one place sweeps and compare variants
// change a UBBCONFIG.
func editUBB(ubb, key, value string) (string, error) {
	switch key {
	case "LDBAL":
		return setResource(ubb, "LDBAL", value, "Y", "N")
	case "MODEL":
		return setResource(ubb, "MODEL", value, "SHM", "MP")
	}
	return "", fmt.Errorf("%s: this build cannot edit UBBCONFIG entries yet", key)
}
