// PATCH bodies: JSON merge patch (RFC 7386, also used for strategic merge on our kinds) and JSON patch (RFC 6902).
import { ApiError, badRequest, unsupportedMediaType } from './status.js';
import { clone, isPlainObject, jsonEqual, type Json } from './object.js';

/** RFC 7386: objects merge recursively, null deletes a key, anything else replaces. */
function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isPlainObject(patch)) return clone(patch);
  const out: Record<string, unknown> = isPlainObject(target) ? clone(target) : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) Reflect.deleteProperty(out, key);
    else out[key] = mergePatch(out[key], value);
  }
  return out;
}

interface Op {
  op: string;
  path: string;
  from?: string;
  value?: Json;
}

function pointer(path: string): string[] {
  if (path === '') return [];
  if (!path.startsWith('/')) throw badRequest(`invalid JSON pointer: "${path}"`);
  return path
    .slice(1)
    .split('/')
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** The container holding the last segment of path, and that segment. */
function parentOf(doc: unknown, parts: string[]): [Record<string, unknown> | unknown[], string] {
  let cur: unknown = doc;
  for (const part of parts.slice(0, -1)) {
    if (Array.isArray(cur)) cur = cur[Number(part)];
    else if (isPlainObject(cur)) cur = cur[part];
    else cur = undefined;
    if (cur === undefined) throw patchFailed(`path /${parts.join('/')} does not exist`);
  }
  if (!Array.isArray(cur) && !isPlainObject(cur)) throw patchFailed(`path /${parts.join('/')} has no parent`);
  return [cur, parts[parts.length - 1] ?? ''];
}

function patchFailed(why: string): ApiError {
  return new ApiError(422, 'Invalid', `the server rejected our request due to an error in our request: ${why}`);
}

function index(arr: unknown[], key: string, forAdd: boolean): number {
  if (forAdd && key === '-') return arr.length;
  const i = Number(key);
  const max = forAdd ? arr.length : arr.length - 1;
  if (!/^\d+$/.test(key) || i > max) throw patchFailed(`array index ${key} out of range`);
  return i;
}

function get(doc: unknown, path: string): unknown {
  const parts = pointer(path);
  if (parts.length === 0) return doc;
  const [parent, key] = parentOf(doc, parts);
  const v = Array.isArray(parent) ? parent[index(parent, key, false)] : parent[key];
  if (v === undefined) throw patchFailed(`path ${path} does not exist`);
  return v;
}

function remove(doc: unknown, path: string): unknown {
  const [parent, key] = parentOf(doc, pointer(path));
  if (Array.isArray(parent)) return parent.splice(index(parent, key, false), 1)[0];
  if (!(key in parent)) throw patchFailed(`unable to remove nonexistent key: ${key}`);
  const old = parent[key];
  Reflect.deleteProperty(parent, key);
  return old;
}

function add(doc: unknown, path: string, value: unknown): unknown {
  const parts = pointer(path);
  if (parts.length === 0) return clone(value);
  const [parent, key] = parentOf(doc, parts);
  if (Array.isArray(parent)) parent.splice(index(parent, key, true), 0, clone(value));
  else parent[key] = clone(value);
  return doc;
}

function replace(doc: unknown, path: string, value: unknown): unknown {
  const parts = pointer(path);
  if (parts.length === 0) return clone(value);
  get(doc, path);
  const [parent, key] = parentOf(doc, parts);
  if (Array.isArray(parent)) parent[index(parent, key, false)] = clone(value);
  else parent[key] = clone(value);
  return doc;
}

function applyOp(doc: unknown, op: Op): unknown {
  switch (op.op) {
    case 'add':
      return add(doc, op.path, op.value);
    case 'remove':
      remove(doc, op.path);
      return doc;
    case 'replace':
      return replace(doc, op.path, op.value);
    case 'move': {
      const v = remove(doc, op.from ?? '');
      return add(doc, op.path, v);
    }
    case 'copy':
      return add(doc, op.path, get(doc, op.from ?? ''));
    case 'test':
      if (!jsonEqual(get(doc, op.path), op.value)) throw patchFailed(`testing value ${op.path} failed`);
      return doc;
    default:
      throw badRequest(`unexpected JSON patch operation: ${op.op}`);
  }
}

/** RFC 6902, applied to a copy; a failed "test" or a missing path is a 422, a malformed patch a 400. */
function jsonPatch(target: unknown, patch: unknown): unknown {
  if (!Array.isArray(patch)) throw badRequest('a JSON patch must be an array of operations');
  let doc = clone(target);
  for (const raw of patch) {
    if (!isPlainObject(raw) || typeof raw.op !== 'string' || typeof raw.path !== 'string') {
      throw badRequest('each JSON patch operation needs "op" and "path"');
    }
    doc = applyOp(doc, raw as unknown as Op);
  }
  return doc;
}

/** Apply a PATCH body by its Content-Type, as the apiserver chooses the patch strategy. */
export function applyPatch(contentType: string, target: unknown, body: string): unknown {
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  let patch: unknown;
  try {
    patch = JSON.parse(body);
  } catch (e) {
    throw badRequest(`invalid JSON in patch: ${(e as Error).message}`);
  }
  switch (type) {
    case 'application/merge-patch+json':
    case 'application/strategic-merge-patch+json':
      if (!isPlainObject(patch)) throw badRequest('a merge patch must be a JSON object');
      return mergePatch(target, patch);
    case 'application/json-patch+json':
      return jsonPatch(target, patch);
    default:
      throw unsupportedMediaType(type);
  }
}
