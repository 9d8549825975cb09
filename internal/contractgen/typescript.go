package contractgen

import (
	"fmt"
	"reflect"
	"strings"
)

// TypeScriptHeader opens the generated frontend/src/types.ts.
const TypeScriptHeader = `// The JSON shapes the playground reads and writes, generated from the Go types
// (core, core/ubb, core/sweep) with their doc comments by
// ` + "`go test ./internal/contractgen -update`" + `: do not edit, change the Go type and
// rerun it (docs/architecture.md, "The generated contract").
`

// TypeScript writes the declarations: an interface per struct, a type alias
// per custom JSON type. A property is optional when Go omits it when empty
// (omitempty), and may be null when Go writes a nil pointer, slice or map
// as null.
func (c *Contract) TypeScript() string {
	var b strings.Builder
	b.WriteString(TypeScriptHeader)
	for _, d := range c.Types {
		b.WriteString("\n")
		writeTSDoc(&b, "", d.Doc)
		if d.Override != nil {
			fmt.Fprintf(&b, "export type %s = %s;\n", d.Name, d.Override.TS)
			continue
		}
		fmt.Fprintf(&b, "export interface %s {\n", d.Name)
		for _, f := range d.Fields {
			writeTSDoc(&b, "  ", f.Doc)
			opt, typ := "", c.tsType(f.Go)
			if f.OmitEmpty || optionalOnInput[d.Name+"."+f.JSON] {
				opt = "?"
			} else if nullable(f.Go) && f.Go.Kind() != reflect.Interface {
				typ += " | null"
			}
			fmt.Fprintf(&b, "  %s%s: %s;\n", tsKey(f.JSON), opt, typ)
		}
		b.WriteString("}\n")
	}
	return b.String()
}

// tsType is the TypeScript type of a Go type.
func (c *Contract) tsType(t reflect.Type) string {
	if d, ok := c.byGo[t]; ok {
		return d.Name
	}
	switch t.Kind() {
	case reflect.Pointer:
		return c.tsType(t.Elem())
	case reflect.Slice, reflect.Array:
		el := c.tsType(t.Elem())
		if strings.ContainsAny(el, "|&") {
			el = "(" + el + ")"
		}
		return el + "[]"
	case reflect.Map:
		return "Record<string, " + c.tsType(t.Elem()) + ">"
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Interface:
		return "unknown"
	}
	panic(fmt.Sprintf("contractgen: no TypeScript type for %v", t))
}

// tsKey quotes a property name that is not an identifier.
func tsKey(k string) string {
	for i, r := range k {
		if !(r == '_' || r == '$' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return fmt.Sprintf("%q", k)
		}
	}
	return k
}

// writeTSDoc writes a TSDoc comment, wrapped at about 100 columns.
func writeTSDoc(b *strings.Builder, indent, text string) {
	if text == "" {
		return
	}
	text = strings.ReplaceAll(text, "*/", "*\u2215")
	if len(indent)+len(text)+7 <= 100 {
		fmt.Fprintf(b, "%s/** %s */\n", indent, text)
		return
	}
	fmt.Fprintf(b, "%s/**\n", indent)
	line := ""
	for _, w := range strings.Fields(text) {
		if line != "" && len(indent)+3+len(line)+1+len(w) > 100 {
			fmt.Fprintf(b, "%s * %s\n", indent, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	if line != "" {
		fmt.Fprintf(b, "%s * %s\n", indent, line)
	}
	fmt.Fprintf(b, "%s */\n", indent)
}
