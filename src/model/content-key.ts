// One content key per model object: the sha256 of its JSON, secrets as digests of their values (tls-types.ts
// contentJson). Model objects are never changed once built, so each object's key is worked out once and shared by
// everything that compares objects across builds (the route memo, render/dynamic-routes.ts; the model's way back from
// the build worker, worker/model-wire.ts): at 10,000 Ingresses each server's JSON cost both about 0.1 s a build.
import { sha256 } from '../hash.js';
import { contentJson } from './tls-types.js';

const keys = new WeakMap<object, string>();

/** Equal for objects of equal content (Sensitive values included), different otherwise. */
export function contentKey(value: object): string {
  let key = keys.get(value);
  if (key === undefined) {
    key = sha256(contentJson(value));
    keys.set(value, key);
  }
  return key;
}
