// A CodeMirror StreamLanguage for UBBCONFIG and DMCONFIG: section headers
// (*RESOURCES, *DM_REMOTE_SERVICES...), parameter keywords (KEY=), quoted
// strings, numbers and # comments.
import { StreamLanguage, type StreamParser } from "@codemirror/language";

interface State {
  atLineStart: boolean;
}

/** parser is the tokenizer behind the mode, exported for its tests. */
export const parser: StreamParser<State> = {
  name: "ubbconfig",
  startState: () => ({ atLineStart: true }),
  token(stream, state) {
    if (stream.sol()) state.atLineStart = true;
    if (stream.eatSpace()) return null;
    const first = state.atLineStart;
    state.atLineStart = false;
    if (stream.peek() === "#") {
      stream.skipToEnd();
      return "comment";
    }
    if (first && stream.match(/^\*[A-Za-z_]+/)) return "heading";
    if (stream.peek() === '"') {
      stream.next();
      let escaped = false;
      let ch: string | void;
      while ((ch = stream.next()) !== undefined) {
        if (ch === '"' && !escaped) break;
        escaped = ch === "\\" && !escaped;
      }
      return "string";
    }
    if (stream.match(/^[A-Za-z_][A-Za-z0-9_]*(?==)/)) return "keyword";
    if (stream.match(/^=/)) return "operator";
    if (stream.match(/^-?\d+(\.\d+)?([Mm][Ss])?\b/)) return "number";
    if (first && stream.match(/^[A-Za-z_][\w.-]*/)) return "variableName";
    stream.match(/^[^\s="#]+/) || stream.next();
    return null;
  },
  languageData: { commentTokens: { line: "#" } },
};

/** ubbconfig is the language support for UBBCONFIG/DMCONFIG editors. */
export const ubbconfig = StreamLanguage.define(parser);
