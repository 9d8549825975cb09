// The UBBCONFIG/DMCONFIG editors: CodeMirror 6 with the UBBCONFIG mode, and the
// Go parser's diagnostics shown inline at their line.
import { defaultKeymap, history, historyKeymap } from "@codemirror/commands";
import { defaultHighlightStyle, syntaxHighlighting } from "@codemirror/language";
import { lintGutter, setDiagnostics, type Diagnostic as CMDiagnostic } from "@codemirror/lint";
import { EditorState, type Text } from "@codemirror/state";
import { EditorView, highlightActiveLine, keymap, lineNumbers } from "@codemirror/view";
import type { Diagnostic } from "./types";
import { ubbconfig } from "./ubbmode";

/** ConfigEditor wraps one CodeMirror view. */
export class ConfigEditor {
  readonly view: EditorView;
  private silent = false;

  constructor(parent: HTMLElement, label: string, onChange: (text: string) => void) {
    this.view = new EditorView({
      parent,
      state: EditorState.create({
        doc: "",
        extensions: [
          lineNumbers(),
          history(),
          highlightActiveLine(),
          keymap.of([...defaultKeymap, ...historyKeymap]),
          syntaxHighlighting(defaultHighlightStyle),
          ubbconfig,
          lintGutter(),
          EditorView.contentAttributes.of({ "aria-label": label }),
          EditorView.updateListener.of((u) => {
            if (u.docChanged && !this.silent) onChange(u.state.doc.toString());
          }),
        ],
      }),
    });
  }

  /** text returns the editor's content. */
  get text(): string {
    return this.view.state.doc.toString();
  }

  /** setText replaces the content without firing onChange. */
  setText(text: string): void {
    this.silent = true;
    this.view.dispatch({ changes: { from: 0, to: this.view.state.doc.length, insert: text } });
    this.silent = false;
  }

  /** show puts the parser's diagnostics (already filtered to this file) inline. */
  show(diags: Diagnostic[]): void {
    const doc = this.view.state.doc;
    this.view.dispatch(setDiagnostics(this.view.state, diags.map((d) => toCM(doc, d))));
  }
}

/** toCM turns a 1-based line/col diagnostic into a CodeMirror range (the rest of the line). */
export function toCM(doc: Text, d: Diagnostic): CMDiagnostic {
  const lineNo = Math.min(Math.max(d.line || 1, 1), doc.lines);
  const line = doc.line(lineNo);
  const from = Math.min(line.from + Math.max((d.col || 1) - 1, 0), line.to);
  return {
    from,
    to: Math.max(from, line.to),
    severity: d.severity === "warning" ? "warning" : "error",
    message: d.message,
  };
}
