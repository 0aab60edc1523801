// Resolves what auth annotations name: the htpasswd Secret, the auth-proxy-set-headers ConfigMap, global auth.
// Any failure closes the Ingress's paths (503) with a Problem naming the annotation and why; never open.
import type { Snapshot } from '../model/input.js';
import type { IngressSettings } from '../model/settings.js';
import { globalExternalAuth, type BasicAuth, type ExternalAuth, type GlobalAuthSettings, type LocationAuth } from '../model/settings-auth.js';
import { secretText } from '../model/tls-secrets.js';
import { Sensitive } from '../model/tls-types.js';
import type { ObjectRef, Problem } from '../model/types.js';
import { headersFrom } from './select.js';
import { byName } from '../model/lookup.js';

export interface AuthResolveOptions {
  readonly prefix: string;
  readonly global: GlobalAuthSettings;
}

/** Hashes nginx's auth_basic checks with crypt(3) on Debian (libxcrypt) or itself: apr1, {SHA}, {SSHA}, MD5/SHA/bcrypt/yescrypt crypt. */
const HASH =
  /^(\$apr1\$[./0-9A-Za-z]{0,8}\$[./0-9A-Za-z]{22}|\{SHA\}[A-Za-z0-9+/]{27}=|\{SSHA\}[A-Za-z0-9+/]{30,}={0,2}|\$1\$[./0-9A-Za-z]{0,8}\$[./0-9A-Za-z]{22}|\$[56]\$(rounds=\d{4,9}\$)?[./0-9A-Za-z]{0,16}\$[./0-9A-Za-z]{43,86}|\$2[aby]\$\d\d\$[./0-9A-Za-z]{53}|\$y\$[./0-9A-Za-z]+\$[./0-9A-Za-z]+\$[./0-9A-Za-z]{43})$/;
/** A user name: printable ASCII without ':' or spaces. */
const USER = /^[\x21-\x39\x3b-\x7e]{1,255}$/;
const MAX_USERS = 10_000;

export type Checked = { readonly ok: true; readonly lines: string } | { readonly ok: false; readonly reason: string };

/** Checks user/hash pairs strictly; the reason names the line or user, never a hash. */
export function checkUsers(pairs: readonly (readonly [string, string])[], where: string): Checked {
  if (pairs.length === 0) return { ok: false, reason: `${where} holds no users` };
  if (pairs.length > MAX_USERS) return { ok: false, reason: `${where} holds more than ${MAX_USERS} users` };
  const seen = new Set<string>();
  for (const [i, [user, hash]] of pairs.entries()) {
    const at = USER.test(user) ? `user ${JSON.stringify(user)}` : `entry ${i + 1}`;
    if (!USER.test(user)) return { ok: false, reason: `${where} ${at}: the user name must be printable ASCII without ':' or spaces` };
    if (seen.has(user)) return { ok: false, reason: `${where} ${at} appears twice` };
    seen.add(user);
    if (hash.startsWith('{PLAIN}')) return { ok: false, reason: `${where} ${at}: plain-text passwords are refused; use openssl passwd -apr1 or bcrypt` };
    if (!HASH.test(hash)) return { ok: false, reason: `${where} ${at}: not a password hash nginx checks (apr1, {SHA}, {SSHA}, $1$, $5$, $6$, $2y$ bcrypt or $y$)` };
  }
  return { ok: true, lines: `${pairs.map(([u, h]) => `${u}:${h}`).join('\n')}\n` };
}

/** htpasswd text: one `user:hash` a line; blank lines and `#` comments skipped; CR LF accepted. */
export function parseHtpasswd(text: string, where: string): Checked {
  const pairs: [string, string][] = [];
  for (const [i, raw] of text.split('\n').entries()) {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line.trim() === '' || line.startsWith('#')) continue;
    const colon = line.indexOf(':');
    if (colon < 1) return { ok: false, reason: `${where} line ${i + 1} is not user:hash` };
    pairs.push([line.slice(0, colon), line.slice(colon + 1)]);
  }
  return checkUsers(pairs, where);
}

function readBasic(b: BasicAuth, snap: Snapshot, ing: ObjectRef, o: AuthResolveOptions): BasicAuth | string {
  const [ns = '', name = ''] = b.secret.includes('/') ? b.secret.split('/') : [ing.namespace, b.secret];
  const id = `${ns}/${name}`;
  if (ns !== ing.namespace && !o.global.allowCrossNamespaceResources) {
    return `Secret ${id} is in another namespace than the Ingress; set allow-cross-namespace-resources in the ConfigMap to allow it`;
  }
  const secret = byName(snap.secrets, ns, name);
  if (!secret) return `Secret ${id} not found`;
  let checked: Checked;
  if (b.secretType === 'auth-map') {
    const keys = [...new Set([...Object.keys(secret.data ?? {}), ...Object.keys(secret.stringData ?? {})])].sort();
    checked = checkUsers(
      keys.map((k) => [k, (secretText(secret, k) ?? '').trim()] as const),
      `Secret ${id} (auth-map)`,
    );
  } else {
    const text = secretText(secret, 'auth');
    checked = text === undefined ? { ok: false, reason: `Secret ${id} has no key auth` } : parseHtpasswd(text, `Secret ${id} key auth`);
  }
  if (!checked.ok) return checked.reason;
  return { ...b, secret: id, file: `auth/${ing.namespace}.${ing.name}.htpasswd`, users: new Sensitive(checked.lines) };
}

function readExternal(given: ExternalAuth, snap: Snapshot, ing: ObjectRef): ExternalAuth | string {
  // A cached verdict belongs to its Ingress: the same settings on two Ingresses must not answer for each other.
  const e = given.cacheKey === undefined ? given : { ...given, cacheScope: `${ing.namespace}/${ing.name}` };
  if (e.proxySetHeadersRef === undefined) return e;
  const [ns = '', name = ''] = e.proxySetHeadersRef.split('/');
  if (ns !== '' && ns !== ing.namespace) return `ConfigMap ${e.proxySetHeadersRef} is in another namespace than the Ingress`;
  const r = headersFrom(snap.configMaps, `${ing.namespace}/${name}`);
  return r.error !== undefined ? r.error : { ...e, proxySetHeadersRef: `${ing.namespace}/${name}`, proxySetHeaders: r.headers };
}

/**
 * The settings of one chosen Ingress with its auth resolved. Unchanged (the same object) when neither the Ingress
 * nor the ConfigMap asks for auth.
 */
export function resolveAuth(s: IngressSettings, snap: Snapshot, ing: ObjectRef, o: AuthResolveOptions): { settings: IngressSettings; problems: Problem[] } {
  const own = s.location.auth;
  const global = own?.enableGlobal === false || own?.external ? undefined : globalExternalAuth(o.global);
  if (!own && !global) return { settings: s, problems: [] };
  const problems: Problem[] = [];
  const fail = (annotation: string, reason: string, code?: 'SecretProblem'): void => {
    const field = `metadata.annotations[${o.prefix}/${annotation}]`;
    problems.push({ object: ing, field, reason: `${reason}; the paths of this Ingress answer 503`, severity: 'degraded', ...(code ? { code } : {}) });
  };
  let auth: LocationAuth = { ...(own ?? { enableGlobal: true }), ...(global ? { external: global } : {}) };
  if (auth.basic) {
    const b = readBasic(auth.basic, snap, ing, o);
    if (typeof b === 'string') fail('auth-secret', b, 'SecretProblem');
    else auth = { ...auth, basic: b };
  }
  if (auth.external) {
    const e = readExternal(auth.external, snap, ing);
    if (typeof e === 'string') fail('auth-proxy-set-headers', e);
    else auth = { ...auth, external: e };
  }
  if (problems.length > 0) auth = { ...auth, denied: problems.map((p) => p.reason).join('; ') };
  return { settings: { ...s, location: { ...s.location, auth } }, problems };
}
