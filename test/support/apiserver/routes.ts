// URL routing: maps /api/v1/... and /apis/GROUP/VERSION/... paths to a kind, namespace, name and subresource.
import { KINDS, apiVersionOf, kindByPlural, type KindInfo } from './kinds.js';
import { ApiError } from './status.js';

/** A request for a resource: collection when name is undefined. */
export interface ResourceRoute {
  readonly type: 'resource';
  readonly info: KindInfo;
  /** The namespace from the URL; undefined for cluster-scoped kinds and all-namespaces collections. */
  readonly namespace: string | undefined;
  readonly name: string | undefined;
  readonly subresource: string | undefined;
}

/** A discovery document the double answers without looking at the store. */
export interface DiscoveryRoute {
  readonly type: 'discovery';
  readonly body: unknown;
}

export type Route = ResourceRoute | DiscoveryRoute;

function notFoundPath(): ApiError {
  return new ApiError(404, 'NotFound', 'the server could not find the requested resource');
}

function groupVersions(): { group: string; version: string }[] {
  const seen = new Map<string, { group: string; version: string }>();
  for (const i of KINDS) seen.set(apiVersionOf(i), { group: i.group, version: i.version });
  return [...seen.values()];
}

function resourceList(group: string, version: string): unknown {
  const kinds = KINDS.filter((i) => i.group === group && i.version === version);
  if (kinds.length === 0) throw notFoundPath();
  const resources = kinds.flatMap((i) => {
    const verbs = i.writable ? ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'] : ['get', 'list', 'watch'];
    const main = { name: i.plural, singularName: i.singular, namespaced: i.namespaced, kind: i.kind, verbs };
    const status = { name: `${i.plural}/status`, singularName: '', namespaced: i.namespaced, kind: i.kind, verbs: ['get', 'patch', 'update'] };
    return i.status ? [main, status] : [main];
  });
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: group === '' ? version : `${group}/${version}`, resources };
}

function apiGroup(group: string): unknown {
  const versions = groupVersions()
    .filter((gv) => gv.group === group)
    .map((gv) => ({ groupVersion: `${group}/${gv.version}`, version: gv.version }));
  if (versions.length === 0) throw notFoundPath();
  return { kind: 'APIGroup', apiVersion: 'v1', name: group, versions, preferredVersion: versions[0] };
}

function discovery(parts: string[]): unknown {
  const [root, group, version] = parts;
  if (root === 'version' && parts.length === 1) {
    return { major: '1', minor: '31', gitVersion: 'v1.31.0-portico-double', platform: 'linux/amd64' };
  }
  if (root === 'api' && parts.length === 1) {
    return { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [] };
  }
  if (root === 'api' && parts.length === 2) return resourceList('', group ?? '');
  if (root === 'apis' && parts.length === 1) {
    const groups = [
      ...new Set(
        groupVersions()
          .map((gv) => gv.group)
          .filter((g) => g !== ''),
      ),
    ];
    return { kind: 'APIGroupList', apiVersion: 'v1', groups: groups.map((g) => apiGroup(g)) };
  }
  if (root === 'apis' && parts.length === 2) return apiGroup(group ?? '');
  if (root === 'apis' && parts.length === 3) return resourceList(group ?? '', version ?? '');
  return undefined;
}

/** The route of a URL path, or a 404 Status. */
export function route(pathname: string): Route {
  const parts = pathname
    .split('/')
    .filter((p) => p !== '')
    .map((p) => decodeURIComponent(p));
  const doc = discovery(parts);
  if (doc !== undefined) return { type: 'discovery', body: doc };
  let group: string;
  let version: string;
  let rest: string[];
  if (parts[0] === 'api' && parts.length >= 3) {
    group = '';
    version = parts[1]!;
    rest = parts.slice(2);
  } else if (parts[0] === 'apis' && parts.length >= 4) {
    group = parts[1]!;
    version = parts[2]!;
    rest = parts.slice(3);
  } else {
    throw notFoundPath();
  }
  let namespace: string | undefined;
  const inNs = rest[0] === 'namespaces' && rest.length >= 3 ? kindByPlural(group, version, rest[2]!) : undefined;
  if (inNs?.namespaced === true) {
    namespace = rest[1];
    rest = rest.slice(2);
  }
  const info = kindByPlural(group, version, rest[0] ?? '');
  if (info === undefined || rest.length > 3) throw notFoundPath();
  const name = rest[1];
  const subresource = rest[2];
  if (info.namespaced && name !== undefined && namespace === undefined) throw notFoundPath();
  if (!info.namespaced && namespace !== undefined) throw notFoundPath();
  if (subresource !== undefined && !(subresource === 'status' && info.status)) throw notFoundPath();
  return { type: 'resource', info, namespace, name, subresource };
}
