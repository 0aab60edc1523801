// One definition of validity: every value of a shared corpus gets the same verdict from the TypeScript
// annotation parser as from portico.configuration in real nginx, field by field. TypeScript refusing less than Lua
// would let one Ingress's value drop its backend in nginx; refusing more would make the two definitions drift.
// One refusal is TypeScript's alone, on purpose: patterns with nested quantifiers (src/model/regex-safety.ts) are
// refused at admission; PCRE compiles them and Lua bounds their matching with lua_regex_match_limit instead.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { parseAnnotations } from '../../src/annotations/parse.js';
import { isIp } from '../../src/model/backends.js';
import { startNginx, type Nginx } from './harness.js';
import { rejectedItems } from '../../src/nginx/process.js';

const PREFIX = 'nginx.ingress.kubernetes.io';

/** One field both sides check: how TypeScript takes a raw value, and the backend item carrying it to Lua. */
interface Field {
  readonly name: string;
  readonly ts: (raw: string) => boolean;
  readonly item: (raw: string) => Record<string, unknown>;
  readonly corpus: readonly string[];
  /** '' in the payload means "not set" (no header, no hashing): an empty annotation is not compared. */
  readonly emptyIsAbsent?: boolean;
}

/** Reasons of the last refusal by parses(), for the star-height exception. */
let lastReasons: string[] = [];
const parses = (annotations: Record<string, string>): boolean => {
  const full = Object.fromEntries(Object.entries(annotations).map(([k, v]) => [`${PREFIX}/${k}`, v]));
  lastReasons = parseAnnotations(full, { prefix: PREFIX, riskLevel: 'Critical', allowSnippets: false, namespace: 'default' }).errors.map((e) => e.reason);
  return lastReasons.length === 0;
};
const starHeightOnly = (): boolean => lastReasons.length > 0 && lastReasons.every((r) => r.includes('nested quantifier'));
const affinity = (extra: Record<string, unknown>): Record<string, unknown> => ({ endpoints: [], affinity: { mode: 'balanced', name: 'C', ...extra } });
const canary = (extra: Record<string, unknown>): Record<string, unknown> => ({
  endpoints: [],
  canary: { k: { backend: 'c', header: 'x-c', headerValue: '', headerPattern: '', cookie: '', weight: 0, weightTotal: 100, ...extra } },
});

const HOSTILE = ['', ' ', 'a b', 'a;b', 'a\nb', 'a\tb', 'a"b', "a'b", 'a{b}', '$x', '${x}', 'ä', '\u0000', '\\', 'x'.repeat(65), 'x'.repeat(257), 'x'.repeat(1025)];
const PATHS = ['/', '/a', '/a/b', '/a;b', '/a b', '/a%20b', '/a?b', '/a#b', '/ä', 'a', '//', '/a\u0001', `/${'p'.repeat(1023)}`, `/${'p'.repeat(1024)}`, "/a'b", '/a"b', '/a,b', '/a=b'];
const PATTERNS = [
  'abc',
  '^v[0-9]+$',
  '(?i)beta',
  '\\u0041',
  '\\x41',
  '\\d+',
  '\\.',
  'a{2}',
  '[]a]',
  '[^]a]',
  '(?=x)',
  '(?<n>x)',
  '(a',
  'a)',
  '*a',
  'a**',
  '(a+)+',
  '(a|b)*',
  'a{1,3}',
  '\\k<n>',
  '\\1',
  '(?:x)',
  '[a-z]',
  '\\/',
  'a|b',
  '.*',
  '\\Qx\\E',
  '\\p{L}',
];
const ADDRESSES = [
  '10.0.0.1',
  '255.255.255.255',
  '256.0.0.1',
  '1.2.3',
  '01.2.3.4',
  '1.2.3.4.5',
  '::1',
  '2001:db8::1',
  '::ffff:10.0.0.1',
  ':::',
  '1::2::3',
  'fe80::1%eth0',
  '[::1]',
  'example.com',
  '',
  '::',
  '2001:db8:0:0:0:0:0:1',
  '2001:db8:0:0:0:0:0:0:1',
  'g::1',
  '::ffff:1.2.3.256',
  // IPv4 read byte by byte in Lua (portico.configuration): the edges of that reading
  '0.0.0.0',
  '10.0.0.10',
  '1.2.3.0',
  '00.1.2.3',
  '1.2.3.04',
  '1.2.3.4.',
  '.1.2.3',
  '1..2.3',
  '300.1.1.1',
  '999.1.1.1',
  '1.2.3.2555',
  '1.2.3.-4',
  '1.2.3.+4',
  '1e2.1.1.1',
  ' 1.2.3.4',
  '1.2.3.4 ',
  '1.2.3.4\n',
  '\uff11.2.3.4',
  '::ffff:01.2.3.4',
];

const FIELDS: readonly Field[] = [
  {
    name: 'session-cookie-name',
    ts: (r) => parses({ affinity: 'cookie', 'session-cookie-name': r }),
    item: (r) => affinity({ name: r }),
    corpus: ['INGRESSCOOKIE', 'a.b', "a!#%&'*+.^_`|~-", 'a=b', 'a,b', ...HOSTILE],
  },
  { name: 'session-cookie-path', ts: (r) => parses({ affinity: 'cookie', 'session-cookie-path': r }), item: (r) => affinity({ path: r }), corpus: [...PATHS, ...HOSTILE] },
  {
    name: 'upstream-hash-by',
    emptyIsAbsent: true,
    ts: (r) => parses({ 'upstream-hash-by': r }),
    item: (r) => ({ endpoints: [], hashBy: r }),
    corpus: ['$request_uri', '${request_uri}', '$remote_addr$request_uri', 'x$host', '$1', '$', 'request_uri', '$a-b', '$a.b', `$${'v'.repeat(40)}`, ...HOSTILE],
  },
  {
    name: 'canary-by-header',
    emptyIsAbsent: true,
    ts: (r) => parses({ canary: 'true', 'canary-by-header': r }),
    item: (r) => canary({ header: r }),
    corpus: ['x-canary', 'X_C', 'x.c', '-x', 'x-', ...HOSTILE],
  },
  {
    name: 'canary-by-header-value',
    emptyIsAbsent: true,
    ts: (r) => parses({ canary: 'true', 'canary-by-header': 'x', 'canary-by-header-value': r }),
    item: (r) => canary({ headerValue: r }),
    corpus: ['always', 'a b', 'a$b', ...HOSTILE],
  },
  {
    name: 'canary-by-header-pattern',
    emptyIsAbsent: true,
    ts: (r) => parses({ canary: 'true', 'canary-by-header': 'x', 'canary-by-header-pattern': r }),
    item: (r) => canary({ headerPattern: r }),
    corpus: [...PATTERNS, ...HOSTILE],
  },
  { name: 'canary-by-cookie', emptyIsAbsent: true, ts: (r) => parses({ canary: 'true', 'canary-by-cookie': r }), item: (r) => canary({ cookie: r }), corpus: ['use_canary', 'a.b', 'a=b', ...HOSTILE] },
  // EndpointSlice addresses: the model keeps an endpoint only when isIp() holds (model/backends.ts).
  { name: 'endpoint address', ts: (r) => isIp(r), item: (r) => ({ endpoints: [{ address: r, port: 80 }] }), corpus: [...ADDRESSES, ...HOSTILE] },
];

/** Adds values fast-check generates (fixed seed: the same corpus every run) to each field's corpus. */
function generated(field: Field): string[] {
  const alphabet = fc.constantFrom(...'aZ09/._-;$\\{}()[]*+?|^ "\'%#:@!~,=&\u0000\n\t\u00e4'.split(''));
  const strings = fc.array(alphabet, { maxLength: 24 }).map((cs) => cs.join(''));
  const prefixed = field.name.includes('path') ? strings.map((s) => `/${s}`) : field.name === 'upstream-hash-by' ? strings.map((s) => `$${s}`) : strings;
  return fc.sample(prefixed, { numRuns: 150, seed: 13 });
}

void describe('TypeScript and Lua agree on every value of the shared corpus', () => {
  let nginx: Nginx;
  before(async () => {
    nginx = await startNginx({});
  });
  after(async () => {
    await nginx.stop();
  });

  for (const field of FIELDS) {
    void it(field.name, async () => {
      // Annotation values are trimmed before they are parsed, so Lua is given what the model would send.
      const values = [...new Set([...field.corpus, ...generated(field)].map((v) => v.trim()))].filter((v) => !(field.emptyIsAbsent && v === ''));
      const items = values.map((raw, i) => ({ name: `v${i}`, loadBalance: 'round_robin', hashBy: '', affinity: null, ...field.item(raw) }));
      const res = await nginx.post('/configuration/backends', items);
      assert.equal(res.status, 201, res.body);
      const refused = new Set(rejectedItems(res.body).map((r) => r.name));
      const policy: string[] = [];
      const disagree = values.flatMap((raw, i) => {
        lastReasons = [];
        const ts = field.ts(raw);
        const lua = !refused.has(`v${i}`);
        if (!ts && lua && starHeightOnly()) {
          policy.push(raw);
          return [];
        }
        return ts === lua ? [] : [`${JSON.stringify(raw)}: TypeScript ${ts ? 'accepts' : 'refuses'}, Lua ${lua ? 'accepts' : 'refuses'}`];
      });
      assert.deepEqual(disagree, [], `${values.length} values`);
      // The admission-only refusal is exactly the nested quantifiers of the corpus (and of what was generated).
      for (const p of policy) assert.match(p, /\)[*+{]/, `${p} refused for star height`);
      if (field.name === 'canary-by-header-pattern') assert.ok(policy.includes('(a+)+'), '(a+)+ is refused at admission');
    });
  }
});
