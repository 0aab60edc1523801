// The ConfigMap's admin snippets (main-, http-, server-, location-, stream-, global-auth-snippet) under --snippet-mode:
// each is checked in the context it lands in; a refused one is left out, with the reason for a Warning on the ConfigMap.
import type { GlobalSettings } from '../settings.js';
import type { Context } from './allowlist.js';
import { snippetRefusal, type SnippetMode } from './check.js';

type SnippetField = 'mainSnippet' | 'httpSnippet' | 'serverSnippet' | 'locationSnippet' | 'streamSnippet' | 'globalAuthSnippet';

const ADMIN: readonly (readonly [string, SnippetField, Context])[] = [
  ['main-snippet', 'mainSnippet', 'main'],
  ['http-snippet', 'httpSnippet', 'http'],
  ['server-snippet', 'serverSnippet', 'server'],
  ['location-snippet', 'locationSnippet', 'location'],
  ['stream-snippet', 'streamSnippet', 'stream'],
  ['global-auth-snippet', 'globalAuthSnippet', 'location'],
];

/** The settings without the refused snippets, and why each was refused. */
export function checkAdminSnippets(g: GlobalSettings, mode: SnippetMode): { settings: GlobalSettings; refused: { key: string; reason: string }[] } {
  const refused: { key: string; reason: string }[] = [];
  const out: Record<SnippetField, string | undefined> = { ...g };
  for (const [key, field, context] of ADMIN) {
    const text = g[field];
    if (text === undefined) continue;
    const why = snippetRefusal(text, mode, context);
    if (why === undefined) continue;
    refused.push({ key, reason: why });
    out[field] = undefined;
  }
  return { settings: refused.length === 0 ? g : Object.freeze({ ...g, ...out }), refused };
}
