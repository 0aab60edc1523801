// The request headers a gRPC location sends (render/settings.ts), as rendered lines: the unit tests of locations share them.
const I = '            ';

/** Every grpc_set_header line of a gRPC location, in order. */
export const GRPC_HEADERS = [
  'Host $best_http_host',
  'X-Request-ID $req_id',
  'X-Real-IP $remote_addr',
  'X-Forwarded-For $remote_addr',
  'X-Forwarded-Host $best_http_host',
  'X-Forwarded-Port $server_port',
  'X-Forwarded-Proto $scheme',
  'X-Forwarded-Scheme $scheme',
  'X-Scheme $scheme',
  'X-Original-Forwarded-For $http_x_forwarded_for',
  'X-Original-Forwarded-Host $http_x_forwarded_host',
  'Proxy ""',
  'ssl-client-verify ""',
  'ssl-client-subject-dn ""',
  'ssl-client-issuer-dn ""',
  'ssl-client-cert ""',
].map((h) => `${I}grpc_set_header ${h};`);
