// The path-matching examples table of the Kubernetes Ingress documentation, row by row.
// Each row: the paths of one Ingress (type and path), a request path, and which path must answer (or none).

export interface PathRow {
  readonly row: number;
  readonly paths: readonly { readonly type: 'Exact' | 'Prefix'; readonly path: string }[];
  readonly request: string;
  /** Index into `paths` of the path that must serve the request; undefined: no match (default backend). */
  readonly expect: number | undefined;
}

export const PATH_TABLE: readonly PathRow[] = [
  { row: 1, paths: [{ type: 'Prefix', path: '/' }], request: '/anything/at/all', expect: 0 },
  { row: 2, paths: [{ type: 'Exact', path: '/foo' }], request: '/foo', expect: 0 },
  { row: 3, paths: [{ type: 'Exact', path: '/foo' }], request: '/bar', expect: undefined },
  { row: 4, paths: [{ type: 'Exact', path: '/foo' }], request: '/foo/', expect: undefined },
  { row: 5, paths: [{ type: 'Exact', path: '/foo/' }], request: '/foo', expect: undefined },
  { row: 6, paths: [{ type: 'Prefix', path: '/foo' }], request: '/foo', expect: 0 },
  { row: 6, paths: [{ type: 'Prefix', path: '/foo' }], request: '/foo/', expect: 0 },
  { row: 7, paths: [{ type: 'Prefix', path: '/foo/' }], request: '/foo', expect: 0 },
  { row: 7, paths: [{ type: 'Prefix', path: '/foo/' }], request: '/foo/', expect: 0 },
  { row: 8, paths: [{ type: 'Prefix', path: '/aaa/bb' }], request: '/aaa/bbb', expect: undefined },
  { row: 9, paths: [{ type: 'Prefix', path: '/aaa/bbb' }], request: '/aaa/bbb', expect: 0 },
  { row: 10, paths: [{ type: 'Prefix', path: '/aaa/bbb/' }], request: '/aaa/bbb', expect: 0 },
  { row: 11, paths: [{ type: 'Prefix', path: '/aaa/bbb' }], request: '/aaa/bbb/', expect: 0 },
  { row: 12, paths: [{ type: 'Prefix', path: '/aaa/bbb' }], request: '/aaa/bbb/ccc', expect: 0 },
  { row: 13, paths: [{ type: 'Prefix', path: '/aaa/bbb' }], request: '/aaa/bbbxyz', expect: undefined },
  {
    row: 14,
    paths: [
      { type: 'Prefix', path: '/' },
      { type: 'Prefix', path: '/aaa' },
    ],
    request: '/aaa/ccc',
    expect: 1,
  },
  {
    row: 15,
    paths: [
      { type: 'Prefix', path: '/' },
      { type: 'Prefix', path: '/aaa' },
      { type: 'Prefix', path: '/aaa/bbb' },
    ],
    request: '/aaa/bbb',
    expect: 2,
  },
  {
    row: 16,
    paths: [
      { type: 'Prefix', path: '/' },
      { type: 'Prefix', path: '/aaa' },
      { type: 'Prefix', path: '/aaa/bbb' },
    ],
    request: '/ccc',
    expect: 0,
  },
  { row: 17, paths: [{ type: 'Prefix', path: '/aaa' }], request: '/ccc', expect: undefined },
  {
    row: 18,
    paths: [
      { type: 'Prefix', path: '/foo' },
      { type: 'Exact', path: '/foo' },
    ],
    request: '/foo',
    expect: 1,
  },
];
