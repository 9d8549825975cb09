// The UBBCONFIG/DMCONFIG editors: CodeMirror 6 with the UBBCONFIG mode, and the
// Go parser's diagnostics shown inline at their line.
import { defaultKeymap, history, historyKeymap } from "@codemirror/commands";
import { HighlightStyle, syntaxHighlighting } from "@codemirror/language";
import { lintGutter, setDiagnostics, type Diagnostic as CMDiagnostic } from "@codemirror/lint";
import { EditorState, type Text, type Transaction } from "@codemirror/state";
import { EditorView, highlightActiveLine, keymap, lineNumbers } from "@codemirror/view";
import { tags } from "@lezer/highlight";
import type { Diagnostic } from "./types";
import { ubbconfig } from "./ubbmode";

/**
 * theme draws the editor in the page's colours (style.css's custom
 * properties), so it follows the light and dark schemes with the rest.
 */
const theme = EditorView.theme({
  "&": { color: "var(--fg)", backgroundColor: "var(--surface)" },
  ".cm-content": { caretColor: "var(--fg)" },
  ".cm-cursor, .cm-dropCursor": { borderLeftColor: "var(--fg)" },
  ".cm-gutters": { backgroundColor: "var(--bg)", color: "var(--muted)", borderRight: "1px solid var(--line)" },
  ".cm-activeLine": { backgroundColor: "var(--active-line)" },
  ".cm-activeLineGutter": { backgroundColor: "var(--active-line)", color: "var(--fg)" },
  "&.cm-focused > .cm-scroller > .cm-selectionLayer .cm-selectionBackground, .cm-selectionBackground": { backgroundColor: "var(--selection)" },
  ".cm-tooltip": { backgroundColor: "var(--surface)", color: "var(--fg)", border: "1px solid var(--line)" },
});

/** highlight colours the UBBCONFIG mode's tokens, readable on either scheme's background. */
const highlight = HighlightStyle.define([
  { tag: tags.heading, color: "var(--hl-heading)", fontWeight: "bold" },
  { tag: tags.keyword, color: "var(--hl-keyword)" },
  { tag: tags.string, color: "var(--hl-string)" },
  { tag: tags.number, color: "var(--hl-number)" },
  { tag: tags.comment, color: "var(--hl-comment)", fontStyle: "italic" },
  { tag: tags.variableName, color: "var(--hl-name)" },
  { tag: tags.operator, color: "var(--muted)" },
]);

/** ConfigEditor wraps one CodeMirror view. */
export class ConfigEditor {
  readonly view: EditorView;
  private silent = false;

  /**
   * onChange gets every edit's text. onWholePaste, when given, gets the text
   * of a paste that replaced the whole document (or filled an empty one) and
   * says whether it took it; if it did, onChange is not called for it.
   */
  constructor(parent: HTMLElement, label: string, onChange: (text: string) => void, onWholePaste?: (text: string) => boolean) {
    this.view = new EditorView({
      parent,
      state: EditorState.create({
        doc: "",
        extensions: [
          lineNumbers(),
          history(),
          highlightActiveLine(),
          keymap.of([...defaultKeymap, ...historyKeymap]),
          theme,
          syntaxHighlighting(highlight),
          ubbconfig,
          lintGutter(),
          EditorView.contentAttributes.of({ "aria-label": label }),
          EditorView.updateListener.of((u) => {
            if (!u.docChanged || this.silent) return;
            const text = u.state.doc.toString();
            if (onWholePaste && u.transactions.some(replacedByPaste) && onWholePaste(text)) return;
            onChange(text);
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

/** replacedByPaste says whether tr is a paste that replaced the whole document. */
export function replacedByPaste(tr: Transaction): boolean {
  if (!tr.isUserEvent("input.paste")) return false;
  let changes = 0;
  let whole = false;
  tr.changes.iterChanges((fromA, toA) => {
    changes++;
    whole = fromA === 0 && toA === tr.startState.doc.length;
  });
  return changes === 1 && whole;
}
