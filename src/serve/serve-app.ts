// kb serve's HTTP server: a fastify app over one engine. It owns the routes, the error
// shape (OpenAI's, for every failure including malformed JSON and unknown paths), the
// one-line access log, and a shutdown that ends open streams cleanly.
import Fastify, { type FastifyInstance } from 'fastify';
import { type Engine, gpt2Tokenizer } from '../engine/index.ts';
import { ApiError, errorBody } from './api-error.ts';
import { registerCompletionRoutes } from './completion-routes.ts';
import type { Generation } from './generation.ts';
import { registerInfoRoutes } from './info-routes.ts';
import { decodedRequestBody } from './request-encoding.ts';
import type { ServeContext } from './serve-context.ts';
import { type MetricsText, type RequestMetrics, ServeMetrics } from './serve-metrics.ts';
import { WaitingCount } from './waiting-count.ts';
import { withTokenTextCache } from './token-text-cache.ts';

/** How long close() waits for connections to finish before cutting them. */
const CLOSE_GRACE_MS = 2000;

export interface ServeAppOptions {
  engine: Engine;
  modelName: string;
  version: string;
  maxWaiting: number;
  /** Receives one JSON line per request; omit for no access log. */
  accessLog?: (line: string) => void;
  /**
   * Where requests report and /metrics reads: by default a registry of this server's own.
   * An API server thread among several passes the pool's (api-server-thread.ts).
   */
  metrics?: { requests: RequestMetrics; scrape(): Promise<MetricsText> };
  /** The count of requests not yet started, shared by every API server thread; by default this server's own. */
  waiting?: WaitingCount;
  /** Unix seconds the server started (/v1/models' `created`): one for every API server thread; by default now. */
  startedAt?: number;
}

export interface ServeApp {
  app: FastifyInstance;
  /**
   * Listens and resolves with the bound address (port 0 picks a free one). `reusePort`: the
   * port is shared with the other API server threads, the kernel spreading connections over them.
   */
  listen(host: string, port: number, reusePort?: boolean): Promise<{ host: string; port: number; url: string }>;
  /** Stops accepting, ends open requests (their streams get a last chunk and [DONE]), closes the server. */
  close(): Promise<void>;
  /** Requests being generated now. */
  readonly active: ReadonlySet<Generation>;
}

export function createServeApp(options: ServeAppOptions): ServeApp {
  const { engine } = options;
  const model = engine.info.model;
  const metrics = options.metrics ?? localMetrics(engine, options.modelName);
  const ctx: ServeContext = {
    engine,
    modelName: options.modelName,
    tokenizer: model.vocabSize === gpt2Tokenizer.vocabSize ? withTokenTextCache(gpt2Tokenizer) : null,
    metrics: metrics.requests,
    scrapeMetrics: () => metrics.scrape(),
    maxWaiting: options.maxWaiting,
    waiting: options.waiting ?? new WaitingCount(),
    startedAt: options.startedAt ?? Math.floor(Date.now() / 1000),
  };
  const active = new Set<Generation>();
  // Idle keep-alive connections close with the server; streams are ended by close() below.
  const app = Fastify({ logger: false, forceCloseConnections: 'idle', return503OnClosing: true });

  // Any content type is read as JSON (curl -d sends form-encoded, fetch text/plain, by default).
  const json = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('text/plain');
  app.addContentTypeParser('*', { parseAs: 'string' }, json);
  // A body sent gzip- or deflate-compressed is decoded first, within the same body limit.
  const bodyLimit = app.initialConfig.bodyLimit ?? 1024 * 1024;
  app.addHook('preParsing', async (request, _reply, payload) =>
    request.method === 'GET' || request.method === 'HEAD' ? payload : decodedRequestBody(request.headers['content-encoding'], payload, bodyLimit));

  if (options.accessLog) {
    const log = options.accessLog;
    app.addHook('onRequest', (request, reply, done) => {
      const start = performance.now();
      // Read now: a socket the client reset has no address by the time 'close' fires (the 499 line had no "remote").
      const remote = request.ip;
      reply.raw.once('close', () => {
        const status = reply.raw.writableFinished ? reply.raw.statusCode : 499;
        log(JSON.stringify({ time: new Date().toISOString(), remote, method: request.method, path: request.url, status, ms: Math.round((performance.now() - start) * 10) / 10 }));
      });
      done();
    });
  }

  app.setErrorHandler((error, _request, reply) => {
    if (error instanceof ApiError) return reply.code(error.status).send(error.body());
    const status = (error as { statusCode?: number }).statusCode;
    if (status !== undefined && status >= 400 && status < 500) {
      // fastify's own refusals: malformed JSON, a body over the limit, a bad content type.
      return reply.code(status).send(errorBody(status === 415 ? 400 : status, bodyProblem(error)));
    }
    return reply.code(500).send(errorBody(500, (error as Error).message));
  });
  app.setNotFoundHandler((request, reply) => {
    // A path that exists under another method (GET /v1/completions) is a 405 with Allow, as HTTP has it.
    const path = request.url.split('?')[0];
    const allowed = (['GET', 'POST'] as const).filter((method) => method !== request.method && app.hasRoute({ method, url: path }));
    if (allowed.length > 0) return reply.code(405).header('allow', allowed.join(', ')).send(errorBody(405, `${request.method} ${path}: this path takes ${allowed.join(' or ')}`));
    return reply.code(404).send(errorBody(404, `no route ${request.method} ${request.url}`));
  });

  registerCompletionRoutes(app, ctx, active);
  registerInfoRoutes(app, ctx, options.version);

  return {
    app,
    active,
    async listen(host, port, reusePort = false) {
      await app.listen({ host, port, ...(reusePort ? { reusePort } : {}) });
      const address = app.server.address();
      const bound = typeof address === 'object' && address !== null ? address.port : port;
      const shown = host.includes(':') ? `[${host}]` : host;
      return { host, port: bound, url: `http://${shown}:${bound}` };
    },
    async close() {
      const closing = app.close();
      const ending = [...active].map((generation) => {
        generation.abort();
        return generation.done.catch(() => undefined);
      });
      await Promise.all(ending);
      // Let the last chunks and [DONE] flush, then drop the keep-alive connections they leave idle.
      await new Promise((resolve) => setImmediate(resolve));
      app.server.closeIdleConnections();
      const timer = setTimeout(() => app.server.closeAllConnections(), CLOSE_GRACE_MS);
      await closing.finally(() => clearTimeout(timer));
    },
  };
}

/** This server's own registry, the engine's state read at each scrape. */
function localMetrics(engine: Engine, modelName: string): { requests: ServeMetrics; scrape(): Promise<MetricsText> } {
  const requests = new ServeMetrics(modelName, engine.info.model.nCtx);
  return { requests, scrape: async () => requests.scrape(await engine.stats()) };
}

/**
 * fastify's words for a body it could not read, said for any content type: kb serve reads every
 * body as JSON, and fastify's own message blamed a content-type header that curl -d never sent.
 */
function bodyProblem(error: unknown): string {
  const { code, message } = error as { code?: string; message: string };
  if (code === 'FST_ERR_CTP_INVALID_JSON_BODY') return 'the request body is not valid JSON';
  if (code === 'FST_ERR_CTP_EMPTY_JSON_BODY') return 'the request body is empty: send a JSON object';
  return message;
}
