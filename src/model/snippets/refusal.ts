// The snippet check every snippet passes before nginx.conf: the structure (src/model/snippets/check.ts, --snippet-mode=any),
// which the annotation parser and render/escape.ts's snippet() apply whatever the mode; the mode's own check is the parser's.
import { snippetRefusal as check } from './check.js';

/** Pure: why nginx must not see `text` as a snippet at all (it does not parse into whole statements, or names Portico's variables). */
export function snippetRefusal(text: string): string | undefined {
  return check(text, 'any');
}
