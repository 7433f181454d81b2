// One engine, several threads: a thread the engine was shared with (engine.connectPort() ->
// connectEngine) submits to the same step loop, gets the events of its own requests only under
// its own ids, and letting go of it leaves the engine running for its creator.
import { rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { afterAll, describe, expect, it } from 'vitest';
import { connectEngine, createEngine } from '../../src/engine/index.ts';
import { crowdedEngine, greedyAlone, maxNewTokens, prompts, writeContextSensitiveModel } from './batch-invariance-fixture.ts';

const dir = writeContextSensitiveModel('kb-engine-share-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('an engine shared with other threads', () => {
  it('gives the creator and two connected clients, submitting at once, each its own greedy tokens', async () => {
    const alone = await greedyAlone(dir);
    const engine = await createEngine({ weightsDir: dir, threads: 2, ...crowdedEngine, traceSteps: true });
    const [a, b] = await Promise.all([connectEngine(engine.connectPort()), connectEngine(engine.connectPort())]);
    try {
      expect(a.info.numBlocks).toBe(engine.info.numBlocks);
      // Every client numbers its requests from 0: the same ids run side by side in one loop.
      const clients = [engine, a, b];
      const runs = prompts.map((promptIds, i) => clients[i % 3].submit({ promptIds, maxNewTokens }).done);
      const results = await Promise.all(runs);
      results.forEach((r, i) => {
        expect(r.timeline.error, `request ${i}`).toBeNull();
        expect(r.outputIds, `request ${i}`).toEqual(alone[i]);
      });
      // They shared steps: fewer steps than the requests would take one client at a time.
      const stats = await a.stats();
      expect(stats.scheduler.steps).toBeLessThan(prompts.length * maxNewTokens);
      expect(stats.kv.usedBlocks).toBe(0);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
    // The clients let go; the engine runs on for its creator, and the clients' own submits now fail.
    expect((await engine.submit({ promptIds: prompts[0], maxNewTokens }).done).outputIds).toEqual(alone[0]);
    expect((await a.submit({ promptIds: prompts[0], maxNewTokens }).done).timeline.error).toMatch(/closed/);
    await engine.close();
  }, 60_000);

  it('aborts a connected client\'s request by its own id, not the creator\'s request with the same number', async () => {
    const engine = await createEngine({ weightsDir: dir, threads: 2 });
    const client = await connectEngine(engine.connectPort());
    try {
      const mine = engine.submit({ promptIds: prompts[0], maxNewTokens: 24 });
      const theirs = client.submit({ promptIds: prompts[1], maxNewTokens: 24 });
      theirs.abort();
      const [m, t] = await Promise.all([mine.done, theirs.done]);
      expect(t.finishReason).toBe('aborted');
      expect(m.finishReason).toBe('length');
      expect(m.outputIds).toHaveLength(24);
    } finally {
      await client.close();
      await engine.close();
    }
  }, 60_000);

  it('fails the open requests of a connected client when the engine closes under it', async () => {
    const engine = await createEngine({ weightsDir: dir, threads: 2 });
    const client = await connectEngine(engine.connectPort());
    const open = client.submit({ promptIds: prompts[0], maxNewTokens: 200 });
    await engine.close();
    const result = await open.done;
    expect(result.outputIds.length).toBeLessThan(200);
    await client.close();
  }, 60_000);

  it('works from another thread, the port passed in a transfer list', async () => {
    const engine = await createEngine({ weightsDir: dir, threads: 2 });
    const alone = await engine.submit({ promptIds: prompts[2], maxNewTokens }).done;
    const port = engine.connectPort();
    const source = `
      import { workerData, parentPort } from 'node:worker_threads';
      import { register } from ${JSON.stringify(pathToFileURL(createRequire(import.meta.url).resolve('tsx/esm/api')).href)};
      register();
      const { connectEngine } = await import(${JSON.stringify(new URL('../../src/engine/index.ts', import.meta.url).href)});
      const engine = await connectEngine(workerData.port);
      const result = await engine.submit({ promptIds: workerData.promptIds, maxNewTokens: workerData.maxNewTokens }).done;
      await engine.close();
      parentPort.postMessage(result.outputIds);
    `;
    const worker = new Worker(new URL(`data:text/javascript,${encodeURIComponent(source)}`), { workerData: { port, promptIds: prompts[2], maxNewTokens }, transferList: [port] });
    try {
      const outputIds = await new Promise((resolve, reject) => {
        worker.once('message', resolve);
        worker.once('error', reject);
      });
      expect(outputIds).toEqual(alone.outputIds);
    } finally {
      await worker.terminate();
      await engine.close();
    }
  }, 60_000);

  it('aborts the requests of a thread that goes away without letting go, freeing their KV blocks', async () => {
    // A context long enough that the request would run on for seconds: its end must come from the abort.
    const engine = await createEngine({ model: 'gpt2-tiny', threads: 2 });
    const port = engine.connectPort();
    const source = `
      import { workerData, parentPort } from 'node:worker_threads';
      import { register } from ${JSON.stringify(pathToFileURL(createRequire(import.meta.url).resolve('tsx/esm/api')).href)};
      register();
      const { connectEngine } = await import(${JSON.stringify(new URL('../../src/engine/index.ts', import.meta.url).href)});
      const engine = await connectEngine(workerData.port);
      const handle = engine.submit({ promptIds: workerData.promptIds, maxNewTokens: 1000 });
      // Reads on (leaving the loop would abort the request): only the thread's end stops it.
      let told = false;
      for await (const event of handle) if (event.type === 'token' && !told) { told = true; parentPort.postMessage('streaming'); }
    `;
    const worker = new Worker(new URL(`data:text/javascript,${encodeURIComponent(source)}`), { workerData: { port, promptIds: prompts[0] }, transferList: [port] });
    try {
      await new Promise((resolve, reject) => {
        worker.once('message', resolve);
        worker.once('error', reject);
      });
      expect((await engine.stats()).running).toBe(1);
      await worker.terminate();
      let stats = await engine.stats();
      for (let i = 0; i < 25 && (stats.running > 0 || stats.kv.usedBlocks > 0); i++) {
        await new Promise((resolve) => setTimeout(resolve, 10));
        stats = await engine.stats();
      }
      expect(stats.running).toBe(0);
      expect(stats.kv.usedBlocks).toBe(0);
    } finally {
      await engine.close();
    }
  }, 60_000);

  it('refuses to share the sim, whose loop runs on its caller\'s thread', async () => {
    const engine = await createEngine({ backend: 'sim', model: 'gpt2-tiny' });
    try {
      expect(() => engine.connectPort()).toThrow(/sim backend .* cannot be shared/);
    } finally {
      await engine.close();
    }
  });
});
