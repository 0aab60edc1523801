// The one `namespace/name` key of an object or a reference. An object without a namespace is in `default`, as the
// API server places it; every map, index and comparison keyed by namespace and name uses this spelling.

interface Named {
  readonly metadata?: { readonly namespace?: string; readonly name?: string };
}

/** `namespace/name` of a reference; a missing namespace is `default`. */
export function refKey(namespace: string | undefined, name: string | undefined): string {
  return `${namespace || 'default'}/${name ?? ''}`;
}

/** `namespace/name` of an object. */
export function nsKey(obj: Named): string {
  return refKey(obj.metadata?.namespace, obj.metadata?.name);
}
