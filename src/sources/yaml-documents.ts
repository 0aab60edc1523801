// The common manifest file read by js-yaml instead of the yaml library. The yaml library builds a document model with
// every node's source range, about 1 ms of CPU a manifest object at load 10; js-yaml reads the same text in about a
// seventh of it (134 against 1,021 us a document, Ingress + Service, same run), and at 10,000 Ingresses with their
// Services and EndpointSlices that is most of `portico render`'s time and of local mode's first read.
//
// Only text both libraries read the same way takes this path. Anything else returns undefined, and the caller parses
// the whole file with the yaml library, for its errors, its line numbers and its bound on alias expansion:
// - anything js-yaml refuses (a syntax error, a duplicate key, a tag its core schema does not know);
// - anchors, aliases and tags (`&`, `*`, `!` where a node starts), directives (`%`), a `...` line, content on a
//   `---` line, a byte order mark;
// - the plain scalars the two core schemas resolve differently: `0b` integers and signed `0o`/`0x` ones (js-yaml:
//   numbers, YAML 1.2 core: strings), signed floats without a leading digit (`-.5`; the other way round).
// The document's line is the first line of its content, as the yaml library's LineCounter gives it.
import { createRequire } from 'node:module';

type JsYaml = typeof import('js-yaml');
let jsYamlModule: JsYaml | undefined;
const jsYaml = (): JsYaml => (jsYamlModule ??= createRequire(import.meta.url)('js-yaml') as JsYaml);

export interface QuickDocument {
  readonly value: unknown;
  /** 1-based: the document's first line of content. */
  readonly line: number;
}

/** Where a node starts with an anchor, alias or tag; a directive; a document end marker; the scalars resolved apart. */
const LEAVE = /(?:^|[\s[{,:])(?:[&*!]\S|[-+]?0b|[-+]0[ox]|[-+]\.\d)|^%|^\.\.\.(?:\s|$)/m;
/** A document start marker: `---` at column 0, alone or before a comment (YAML forbids it inside any scalar). */
const START = /^---(?:[ \t]+(#.*)?)?$/;

/** The documents of `text` when js-yaml reads them as the yaml library would, else undefined. */
export function quickYamlDocuments(text: string): QuickDocument[] | undefined {
  if (text.charCodeAt(0) === 0xfeff || LEAVE.test(text)) return undefined;
  const lines = text.split('\n');
  const docs: QuickDocument[] = [];
  const { load, CORE_SCHEMA } = jsYaml();
  let from = 0;
  // Bounded: each turn ends one document and moves `from` past it.
  for (let at = 0; at <= lines.length; at++) {
    const line = at < lines.length ? (lines[at] ?? '') : undefined;
    if (line !== undefined && !line.startsWith('---')) continue;
    if (line !== undefined && !START.test(line.trimEnd())) return undefined; // `--- {a: 1}`, `--- |`, `----`
    const chunk = lines.slice(from, at);
    const first = chunk.findIndex((l) => l.trim() !== '' && !l.trimStart().startsWith('#'));
    if (first !== -1) {
      try {
        docs.push({ value: load(chunk.join('\n'), { schema: CORE_SCHEMA }), line: from + first + 1 });
      } catch {
        return undefined;
      }
    } else if (line === undefined || from > 0) {
      docs.push({ value: null, line: from + 1 }); // an empty document: nothing to collect
    }
    from = at + 1;
  }
  return docs;
}
