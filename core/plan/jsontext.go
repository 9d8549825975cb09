package plan

import (
	"github.com/tuxlb/tuxlb/core/diag"
	"github.com/tuxlb/tuxlb/core/internal/jsonx"
)

// CheckJSONText checks what encoding/json lets pass silently in a document
// that decodes into v (a pointer to a struct): a string that is not valid
// UTF-8, and a key that differs only in case from a field of the struct it
// falls in (jsonx.CheckText). Either is an EINVALID error naming the field
// and its line and column; what names the document. core.ParseScenario
// checks it; a program decoding another document of the API checks it
// itself.
func CheckJSONText(data []byte, v any, what string) error {
	if err := jsonx.CheckText(data, v, what); err != nil {
		return diag.Invalid(err)
	}
	return nil
}
