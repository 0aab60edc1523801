// The verbs: get, list (resourceVersion, selectors, limit/continue), watch, create, update, patch, delete.
import { apiVersionOf, resolveKind, type KindInfo } from './kinds.js';
import { isPlainObject, omit, parseObject, type KubeObject } from './object.js';
import { applyPatch } from './patch.js';
import type { ResourceRoute } from './routes.js';
import { parseFieldSelector, parseLabelSelector } from './selectors.js';
import { badRequest, expired, methodNotAllowed, notFound, tooLargeResourceVersion } from './status.js';
import type { Preconditions, Store } from './store.js';
import type { WatchHub } from './watch.js';
import type { ServerResponse } from 'node:http';

const NAMESPACE = resolveKind('Namespace')!; // always served: kinds.ts lists it

/** A request as the handlers see it: route, query, body text and content type. */
export interface Call {
  readonly method: string;
  readonly route: ResourceRoute;
  readonly query: URLSearchParams;
  readonly body: string;
  readonly contentType: string;
}

/** A handler's answer: a status code and a JSON body, or 'streaming' when a watch took over the response. */
export type Answer = { readonly code: number; readonly body: unknown } | 'streaming';

/** The verb a request maps to, as the request log records it. */
export function verbOf(method: string, r: ResourceRoute, query: URLSearchParams): string {
  const isWatch = query.get('watch') === 'true' || query.get('watch') === '1';
  if (r.name === undefined) {
    if (method === 'GET') return isWatch ? 'watch' : 'list';
    if (method === 'POST') return 'create';
    return method === 'DELETE' ? 'deletecollection' : 'unknown';
  }
  const verbs: Record<string, string> = { GET: 'get', PUT: 'update', PATCH: 'patch', DELETE: 'delete' };
  return verbs[method] ?? 'unknown';
}

interface ContinueToken {
  rv: number;
  start: string;
}

function decodeContinue(token: string): ContinueToken {
  try {
    const t = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as unknown;
    if (isPlainObject(t) && typeof t.rv === 'number' && typeof t.start === 'string') return { rv: t.rv, start: t.start };
  } catch {
    // fall through to the 400 below
  }
  throw badRequest('continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
}

function keyOf(obj: KubeObject): string {
  return `${obj.metadata.namespace ?? ''}/${obj.metadata.name ?? ''}`;
}

/** Which snapshot a list reads: resourceVersion semantics of the API conventions. */
function listVersion(store: Store, query: URLSearchParams): number {
  const current = Number(store.resourceVersion);
  const token = query.get('continue') ?? '';
  if (token !== '') {
    const { rv } = decodeContinue(token);
    if (store.isExpired(rv)) {
      throw expired('The provided continue parameter is too old to display a consistent list result. ' + 'You can start a new list without the continue parameter.');
    }
    return rv;
  }
  const asked = query.get('resourceVersion') ?? '';
  if (asked === '' || asked === '0') return current;
  if (!/^\d+$/.test(asked)) throw badRequest(`resourceVersion: Invalid value: "${asked}": must be a number`);
  const n = Number(asked);
  if (n > current) throw tooLargeResourceVersion(asked, String(current));
  return query.get('resourceVersionMatch') === 'Exact' ? n : current; // NotOlderThan (the default) reads the latest
}

function list(store: Store, r: ResourceRoute, query: URLSearchParams): Answer {
  const labels = parseLabelSelector(query.get('labelSelector'));
  const fields = parseFieldSelector(query.get('fieldSelector'), r.info);
  const rv = listVersion(store, query);
  const start = decodeStart(query.get('continue'));
  let items = store.listAt(r.info, r.namespace, rv).filter((o) => labels(o) && fields(o) && keyOf(o) > start);
  const limit = Number(query.get('limit') ?? '0');
  const metadata: Record<string, unknown> = { resourceVersion: String(rv) };
  if (limit > 0 && items.length > limit) {
    const rest = items.length - limit;
    items = items.slice(0, limit);
    metadata.continue = Buffer.from(JSON.stringify({ rv, start: keyOf(items[limit - 1]!) })).toString('base64url');
    metadata.remainingItemCount = rest;
  }
  // typed lists from the real apiserver carry kind/apiVersion on the list only, not on each item
  const bare = items.map((o) => omit(o, ['kind', 'apiVersion']));
  return { code: 200, body: { kind: r.info.listKind, apiVersion: apiVersionOf(r.info), metadata, items: bare } };
}

function decodeStart(token: string | null): string {
  return token === null || token === '' ? '' : decodeContinue(token).start;
}

function bodyObject(call: Call): KubeObject {
  const obj = parseObject(call.body);
  if (typeof obj === 'string') throw badRequest(obj);
  return obj;
}

function existing(store: Store, r: ResourceRoute, name: string): KubeObject {
  const obj = store.get(r.info, r.namespace ?? '', name);
  if (obj === undefined) throw notFound({ group: r.info.group, plural: r.info.plural, name });
  return obj;
}

function deletePreconditions(body: string): Preconditions {
  if (body.trim() === '') return {};
  const opts = parseObject(body);
  if (typeof opts === 'string') throw badRequest(opts);
  const pre = opts.preconditions;
  if (!isPlainObject(pre)) return {};
  const out: { resourceVersion?: string; uid?: string } = {};
  if (typeof pre.resourceVersion === 'string') out.resourceVersion = pre.resourceVersion;
  if (typeof pre.uid === 'string') out.uid = pre.uid;
  return out;
}

function write(store: Store, call: Call, name: string): Answer {
  const r = call.route;
  const ns = r.namespace ?? '';
  const scope = r.subresource === 'status' ? 'status' : 'main';
  switch (call.method) {
    case 'PUT':
      return { code: 200, body: store.update(r.info, ns, name, bodyObject(call), scope) };
    case 'PATCH': {
      const current = existing(store, r, name);
      const patched = applyPatch(call.contentType, current, call.body);
      if (!isPlainObject(patched) || !isPlainObject(patched.metadata)) throw badRequest('the patch removed metadata');
      return { code: 200, body: store.update(r.info, ns, name, patched as KubeObject, scope) };
    }
    case 'DELETE':
      if (r.subresource !== undefined) throw methodNotAllowed('DELETE is not allowed on a subresource');
      return { code: 200, body: store.delete(r.info, ns, name, deletePreconditions(call.body)) };
    default:
      throw methodNotAllowed(`${call.method} is not allowed on a named resource`);
  }
}

function checkWritable(info: KindInfo, call: Call): void {
  if (call.method !== 'GET' && !info.writable) {
    throw methodNotAllowed(`the double serves ${info.plural} read-only; seed them with put()`);
  }
  if (call.query.has('dryRun')) throw badRequest('dryRun is not supported by the API server double');
}

/** Answer a resource request; watches take over the response and return 'streaming'. */
export function handle(store: Store, hub: WatchHub, requireNs: boolean, call: Call, res: ServerResponse): Answer {
  const r = call.route;
  checkWritable(r.info, call);
  if (r.name === undefined) {
    if (call.method === 'GET' && verbOf('GET', r, call.query) === 'watch') {
      const timeout = call.query.get('timeoutSeconds');
      hub.serve(
        {
          info: r.info,
          namespace: r.namespace,
          labels: parseLabelSelector(call.query.get('labelSelector')),
          fields: parseFieldSelector(call.query.get('fieldSelector'), r.info),
          resourceVersion: (call.query.get('resourceVersion') ?? '') === '' ? null : call.query.get('resourceVersion'),
          bookmarks: call.query.get('allowWatchBookmarks') === 'true',
          timeoutSeconds: timeout === null ? undefined : Number(timeout),
        },
        res,
      );
      return 'streaming';
    }
    if (call.method === 'GET') return list(store, r, call.query);
    if (call.method === 'POST') {
      const ns = r.namespace ?? '';
      if (r.info.namespaced && ns === '') throw methodNotAllowed('create needs a namespace in the URL');
      if (requireNs && r.info.namespaced && store.get(NAMESPACE, '', ns) === undefined) {
        throw notFound({ group: '', plural: 'namespaces', name: ns });
      }
      return { code: 201, body: store.create(r.info, ns, bodyObject(call), 'main') };
    }
    throw methodNotAllowed(`${call.method} is not allowed on a collection`);
  }
  if (call.method === 'GET') return { code: 200, body: existing(store, r, r.name) };
  return write(store, call, r.name);
}
