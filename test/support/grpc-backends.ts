// gRPC backends and a client for tests: real @grpc/grpc-js servers on 127.0.0.1 that answer every method they serve
// with who they are and what they saw, and one unary call through Portico's HTTPS port (HTTP/2 by ALPN).
import * as grpc from '@grpc/grpc-js';

/** What a backend answers: its name, the path of the call and the request metadata it received. */
export interface GrpcReply {
  readonly backend: string;
  readonly path: string;
  readonly metadata: Readonly<Record<string, string>>;
}

export interface GrpcBackend {
  readonly name: string;
  readonly port: number;
  close(): void;
}

const text = {
  requestSerialize: (s: string): Buffer => Buffer.from(s),
  requestDeserialize: (b: Buffer): string => b.toString('utf8'),
  responseSerialize: (s: string): Buffer => Buffer.from(s),
  responseDeserialize: (b: Buffer): string => b.toString('utf8'),
};

/** One unary method at `path` whose messages are UTF-8 strings: a gRPC method without a .proto. */
export function unaryText(path: string): grpc.MethodDefinition<string, string> {
  return { path, requestStream: false, responseStream: false, ...text };
}

/** A gRPC server serving `methods` (`/package.Service/Method`), each answering a GrpcReply as JSON. */
export async function startGrpcBackend(name: string, methods: readonly string[]): Promise<GrpcBackend> {
  const server = new grpc.Server();
  const byService = new Map<string, string[]>();
  for (const m of methods) {
    const service = m.split('/')[1] ?? '';
    byService.set(service, [...(byService.get(service) ?? []), m]);
  }
  for (const list of byService.values()) {
    const definition: Record<string, grpc.MethodDefinition<string, string>> = {};
    const handlers: grpc.UntypedServiceImplementation = {};
    for (const path of list) {
      const key = path.split('/')[2] ?? '';
      definition[key] = { path, requestStream: false, responseStream: false, ...text };
      handlers[key] = (call: grpc.ServerUnaryCall<string, string>, cb: grpc.sendUnaryData<string>) => {
        const metadata: Record<string, string> = {};
        for (const [k, v] of Object.entries(call.metadata.getMap())) metadata[k] = String(v);
        cb(null, JSON.stringify({ backend: name, path, metadata } satisfies GrpcReply));
      };
    }
    server.addService(definition, handlers);
  }
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, p) => {
      if (err) reject(err);
      else resolve(p);
    });
  });
  return {
    name,
    port,
    close: () => {
      server.forceShutdown();
    },
  };
}

/** The outcome of one call: the gRPC status code, the reply when OK, and the response headers (initial metadata). */
export interface GrpcOutcome {
  readonly code: number;
  readonly details: string;
  readonly reply?: GrpcReply;
  readonly headers: Readonly<Record<string, string>>;
}

/**
 * One unary call to `path` through `port` (TLS, the CA given, SNI and :authority `host`), with `metadata` as request
 * headers. Never throws for a gRPC status: it is returned.
 */
export async function grpcCall(port: number, ca: string, host: string, path: string, metadata: Record<string, string> = {}): Promise<GrpcOutcome> {
  const client = new grpc.Client(`127.0.0.1:${port}`, grpc.credentials.createSsl(Buffer.from(ca)), { 'grpc.ssl_target_name_override': host, 'grpc.default_authority': host });
  const md = new grpc.Metadata();
  for (const [k, v] of Object.entries(metadata)) md.set(k, v);
  const headers: Record<string, string> = {};
  try {
    return await new Promise<GrpcOutcome>((resolve) => {
      const call = client.makeUnaryRequest(path, text.requestSerialize, text.responseDeserialize, 'hello', md, { deadline: Date.now() + 10_000 }, (err, res) => {
        if (err) resolve({ code: err.code, details: err.details, headers });
        else resolve({ code: 0, details: '', reply: JSON.parse(res ?? '{}') as GrpcReply, headers });
      });
      call.on('metadata', (m: grpc.Metadata) => {
        for (const [k, v] of Object.entries(m.getMap())) headers[k] = String(v);
      });
    });
  } finally {
    client.close();
  }
}
