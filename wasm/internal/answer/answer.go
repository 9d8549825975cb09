// Package answer writes what the playground's WebAssembly modules (wasm and
// wasm/fit) return to JavaScript: an answer as its JSON, or an error as
// {"error": {code, message, diagnostics}}.
package answer

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/tuxlb/tuxlb/core/diag"
)

// Error turns any error into {"error": {code, message, diagnostics}}: a
// [diag.Error] as it is, any other error with its [diag.ErrorCode].
func Error(err error) string {
	var e *diag.Error
	if !errors.As(err, &e) {
		e = &diag.Error{Code: diag.ErrorCode(err), Message: err.Error()}
	}
	return JSON(map[string]*diag.Error{"error": e})
}

// JSON is v's JSON, or an internal error saying why it has none.
func JSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf(`{"error":{"code":%q,"message":%q}}`, diag.EINTERNAL, err.Error())
	}
	return string(b)
}
