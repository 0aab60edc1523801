// The suite's gRPC side, for local mode: the grpc-infra-backend Services of its base manifests (read for names only),
// each a real @grpc/grpc-js backend on 127.0.0.1 that answers who it is (namespace/name) as upstream's gRPC echo
// server answers its pod and namespace, and unary calls over HTTP/2 cleartext with prior knowledge (h2c).
import * as grpc from '@grpc/grpc-js';
import { service, slice } from '../support/objects.js';
import { startGrpcBackend, unaryText, type GrpcBackend, type GrpcReply } from '../support/grpc-backends.js';
import { INFRA_NS } from './base.js';

/** The echo service's methods, as the suite's grpcecho proto names them. */
const SERVICE = 'gateway_api_conformance.echo_basic.grpcecho.GrpcEcho';
export const ECHO = `/${SERVICE}/Echo`;
export const ECHO_TWO = `/${SERVICE}/EchoTwo`;
export const ECHO_THREE = `/${SERVICE}/EchoThree`;
export const ECHO_SERVICE = SERVICE;

export const GRPC_BACKENDS = ['grpc-infra-backend-v1', 'grpc-infra-backend-v2', 'grpc-infra-backend-v3'] as const;

/** gRPC status codes the tests read. */
export const OK = 0;
export const UNIMPLEMENTED = 12;

/** One backend per GRPC_BACKENDS entry, serving the three echo methods, named `namespace/name`. */
export async function startGrpcEchoes(): Promise<Map<string, GrpcBackend>> {
  const out = new Map<string, GrpcBackend>();
  try {
    for (const name of GRPC_BACKENDS) out.set(name, await startGrpcBackend(`${INFRA_NS}/${name}`, [ECHO, ECHO_TWO, ECHO_THREE]));
  } catch (err) {
    for (const b of out.values()) b.close();
    throw err;
  }
  return out;
}

/** Their Services (port 8080) and EndpointSlices (the backend's local port). */
export function grpcServices(backends: ReadonlyMap<string, GrpcBackend>): unknown[] {
  return [...backends].flatMap(([name, b]) => [service(name, INFRA_NS, [{ name: 'grpc', port: 8080 }]), slice(name, b.port, ['127.0.0.1'], { namespace: INFRA_NS, portName: 'grpc' })]);
}

/** What one call gave: the status code, and for OK who answered (namespace and backend name). */
export interface GrpcAnswer {
  readonly code: number;
  readonly details: string;
  readonly namespace?: string;
  readonly backend?: string;
}

/** An h2c client of one local port, `authority` as :authority (default: 127.0.0.1:port, the Gateway's address). */
export class H2cClient {
  private readonly client: grpc.Client;
  constructor(port: number, authority?: string) {
    this.client = new grpc.Client(`127.0.0.1:${String(port)}`, grpc.credentials.createInsecure(), authority === undefined ? {} : { 'grpc.default_authority': authority });
  }

  /** One unary call to `path` with `metadata`; a gRPC status is returned, never thrown. */
  call(path: string, metadata: Readonly<Record<string, string>> = {}): Promise<GrpcAnswer> {
    const method = unaryText(path);
    const md = new grpc.Metadata();
    for (const [k, v] of Object.entries(metadata)) md.set(k, v);
    return new Promise((resolve) => {
      this.client.makeUnaryRequest(path, method.requestSerialize, method.responseDeserialize, 'hello', md, { deadline: Date.now() + 10_000 }, (err, res) => {
        if (err) {
          resolve({ code: err.code, details: err.details });
          return;
        }
        const reply = JSON.parse(res ?? '{}') as GrpcReply;
        const [namespace, backend] = reply.backend.split('/');
        resolve({ code: OK, details: '', ...(namespace !== undefined ? { namespace } : {}), ...(backend !== undefined ? { backend } : {}) });
      });
    });
  }

  close(): void {
    this.client.close();
  }
}
