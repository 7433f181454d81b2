// A kb serve app over a real engine (gpt2-tiny on the cpu backend) on a free loopback port.
import { createEngine, type Engine, type EngineOptions } from '../../src/engine/index.ts';
import { createServeApp, type ServeApp } from '../../src/serve/serve-app.ts';

export interface ServeFixture {
  url: string;
  engine: Engine;
  server: ServeApp;
  close(): Promise<void>;
}

export async function startServe(engineOptions: EngineOptions = {}, maxWaiting = 1024, accessLog?: (line: string) => void): Promise<ServeFixture> {
  const engine = await createEngine({ model: 'gpt2-tiny', backend: 'cpu', threads: 1, ...engineOptions });
  const server = createServeApp({ engine, modelName: 'gpt2-tiny', version: 'test', maxWaiting, ...(accessLog ? { accessLog } : {}) });
  const { url } = await server.listen('127.0.0.1', 0);
  return {
    url,
    engine,
    server,
    async close() {
      await server.close();
      await engine.close();
    },
  };
}

export async function postJson(url: string, body: unknown, init: RequestInit = {}): Promise<{ status: number; json: any }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body), ...init });
  const text = await res.text();
  return { status: res.status, json: text === '' ? null : JSON.parse(text) };
}

/** The value of one metric sample from /metrics text (first series of that name). */
export function metricValue(text: string, name: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `));
  if (!line) throw new Error(`no ${name} in /metrics`);
  return Number(line.slice(line.lastIndexOf(' ') + 1));
}
