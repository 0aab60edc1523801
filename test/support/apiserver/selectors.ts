// Label and field selectors: parse the query-string syntax once, then match objects against it.
import { badRequest } from './status.js';
import type { KindInfo } from './kinds.js';
import type { KubeObject } from './object.js';

/** A parsed selector: true when the object matches. */
export type Selector = (obj: KubeObject) => boolean;

const everything: Selector = () => true;

/** Split on commas that are not inside parentheses ("a in (x,y),b" → ["a in (x,y)", "b"]). */
function splitTerms(text: string): string[] {
  const terms: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === ',' && depth === 0) {
      terms.push(text.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(text.slice(start));
  return terms.map((t) => t.trim()).filter((t) => t !== '');
}

type Requirement = (labels: Readonly<Record<string, string>>) => boolean;

function labelRequirement(term: string): Requirement {
  const set = /^([^\s!=(),]+)\s+(in|notin)\s+\(([^)]*)\)$/.exec(term);
  if (set !== null) {
    const key = set[1]!;
    const values = new Set(
      set[3]!
        .split(',')
        .map((v) => v.trim())
        .filter((v) => v !== ''),
    );
    return set[2] === 'in' ? (l) => l[key] !== undefined && values.has(l[key]) : (l) => l[key] === undefined || !values.has(l[key]);
  }
  const cmp = /^([^\s!=(),]+)\s*(==|=|!=)\s*([^\s!=(),]*)$/.exec(term);
  if (cmp !== null) {
    const key = cmp[1]!;
    const value = cmp[3]!;
    return cmp[2] === '!=' ? (l) => l[key] !== value : (l) => l[key] === value;
  }
  const exists = /^(!?)([^\s!=(),]+)$/.exec(term);
  if (exists !== null) {
    const key = exists[2]!;
    return exists[1] === '!' ? (l) => l[key] === undefined : (l) => l[key] !== undefined;
  }
  throw badRequest(`unable to parse requirement: ${term}`);
}

/** Parse a labelSelector query value. */
export function parseLabelSelector(text: string | null): Selector {
  if (text === null || text.trim() === '') return everything;
  const reqs = splitTerms(text).map(labelRequirement);
  return (obj) => {
    const labels = obj.metadata.labels ?? {};
    return reqs.every((r) => r(labels));
  };
}

/** Read a dotted field path ("involvedObject.name") as a string, the way field selectors compare it. */
function fieldValue(obj: KubeObject, path: string): string {
  let cur: unknown = obj;
  for (const part of path.split('.')) {
    if (typeof cur !== 'object' || cur === null) return '';
    cur = (cur as Record<string, unknown>)[part];
  }
  if (typeof cur === 'string') return cur;
  if (typeof cur === 'number' || typeof cur === 'boolean') return String(cur);
  return '';
}

/** Parse a fieldSelector query value; unsupported fields are a 400, as in the real apiserver. */
export function parseFieldSelector(text: string | null, info: KindInfo): Selector {
  if (text === null || text.trim() === '') return everything;
  const reqs = splitTerms(text).map((term): Selector => {
    const m = /^([^\s!=]+)\s*(==|=|!=)\s*(.*)$/.exec(term);
    if (m === null) throw badRequest(`invalid selector: '${term}'; can't understand '${term}'`);
    const field = m[1]!;
    const value = m[3]!.trim();
    if (field !== 'metadata.name' && field !== 'metadata.namespace' && !info.fields.includes(field)) {
      throw badRequest(`field label not supported: ${field}`);
    }
    return m[2] === '!=' ? (o) => fieldValue(o, field) !== value : (o) => fieldValue(o, field) === value;
  });
  return (obj) => reqs.every((r) => r(obj));
}
