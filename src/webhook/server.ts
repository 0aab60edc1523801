// The validating admission webhook's HTTPS server: reads a bounded JSON body and answers with reviewAdmission.
//
// It only reads its certificate and key (again when they change on disk, as cert-manager rotates them); it never
// writes a file or starts a process. Every decision is the pure one of review.ts, on the store's current snapshot.
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFile } from 'node:fs/promises';
import { ConfigError, errorMessage } from '../errors.js';
import type { Logger } from '../log.js';
import type { Snapshot } from '../model/input.js';
import { reviewAdmission, type ReviewOutcome } from './review.js';
import type { Checker } from '../pipeline/build.js';

/** An AdmissionReview holds the object and the old object, each at most the API server's 3 MiB request limit. */
const MAX_BODY = 8 * 1024 * 1024;

export interface WebhookOptions {
  readonly host: string;
  readonly port: number;
  readonly certFile: string;
  readonly keyFile: string;
  readonly snapshot: () => Snapshot;
  /** How a candidate is judged: the same annotation stage and model a sync runs (see controller.admissionChecker). */
  readonly checker: Checker;
  /** The same judgement off the main thread (worker/offload.ts); absent: the checker runs inline. */
  readonly review?: (body: unknown, snapshot: Snapshot) => Promise<ReviewOutcome>;
  readonly log: Logger;
  /** How often the certificate files are checked for a new pair. Default 60 s; 0 never. */
  readonly reloadIntervalMs?: number;
}

export interface Webhook {
  readonly port: number;
  close(): Promise<void>;
}

async function readPair(certFile: string, keyFile: string): Promise<{ cert: Buffer; key: Buffer }> {
  try {
    return { cert: await readFile(certFile), key: await readFile(keyFile) };
  } catch (err) {
    throw new ConfigError(`--validating-webhook-certificate/--validating-webhook-key: cannot read them: ${errorMessage(err)}`);
  }
}

function send(res: ServerResponse, status: number, body: string, type = 'application/json'): void {
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

/** Reads the body up to MAX_BODY; undefined when it is larger (the request is answered 413 and dropped). */
async function readBody(req: IncomingMessage, res: ServerResponse): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY) {
      send(res, 413, `request body larger than ${MAX_BODY} bytes\n`, 'text/plain');
      req.destroy();
      return undefined;
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

async function handle(opts: WebhookOptions, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (req.method !== 'POST') {
    send(res, 405, 'only POST of an AdmissionReview\n', 'text/plain');
    return;
  }
  const text = await readBody(req, res);
  if (text === undefined) return;
  const started = performance.now();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    send(res, 400, 'the body is not JSON\n', 'text/plain');
    return;
  }
  const outcome = opts.review ? await opts.review(body, opts.snapshot()) : reviewAdmission(body, opts.snapshot(), opts.checker);
  if (!outcome.ok) {
    send(res, 400, `${outcome.error}\n`, 'text/plain');
    return;
  }
  const ms = Math.round((performance.now() - started) * 10) / 10;
  const v = outcome.verdict;
  if (v.allowed) opts.log.debug({ uid: outcome.reply.response.uid, why: v.why, ms }, 'admission allowed');
  else opts.log.info({ uid: outcome.reply.response.uid, ms }, `admission refused: ${v.message}`);
  send(res, 200, JSON.stringify(outcome.reply));
}

/** Starts the webhook; resolves once it listens. */
export async function startWebhook(opts: WebhookOptions): Promise<Webhook> {
  let pair = await readPair(opts.certFile, opts.keyFile);
  const server: Server = createServer({ ...pair, minVersion: 'TLSv1.2' }, (req, res) => {
    handle(opts, req, res).catch((err: unknown) => {
      opts.log.error({ err: errorMessage(err) }, 'admission review failed');
      if (!res.headersSent) send(res, 500, 'internal error\n', 'text/plain');
    });
  });
  server.headersTimeout = 5_000;
  server.requestTimeout = 10_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host || undefined, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const every = opts.reloadIntervalMs ?? 60_000;
  const timer =
    every > 0
      ? setInterval(() => {
          readPair(opts.certFile, opts.keyFile)
            .then((next) => {
              if (next.cert.equals(pair.cert) && next.key.equals(pair.key)) return;
              server.setSecureContext(next); // throws on a mismatched pair (mid-rotation): the old one keeps serving
              pair = next;
              opts.log.info('validating webhook certificate reloaded');
            })
            .catch((err: unknown) => {
              opts.log.warn({ err: errorMessage(err) }, 'validating webhook certificate not reloaded');
            });
        }, every)
      : undefined;
  timer?.unref();
  const port = (server.address() as AddressInfo).port;
  opts.log.info({ port, host: opts.host || '(all)' }, 'validating admission webhook listening');
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        if (timer) clearInterval(timer);
        server.close(() => {
          resolve();
        });
        server.closeAllConnections();
      }),
  };
}
