// One lab point against a server: warm-up runs (not measured), then the measured repeats,
// each replaying the lab's workload (arrivals and lengths from the engine's seeded
// generator) as streaming requests, with /metrics scraped before and after the measured
// runs. Ctrl-C aborts the requests in flight; what finished is kept, marked partial.
import type { RequestTimeline, WorkloadSpec } from '../../engine/index.ts';
import type { PointHooks, PointRun } from '../engine-bridge.ts';
import type { LabSettings, Length } from '../lab-settings.ts';
import { endpointBounds, endpointMetrics, endpointServerFigures, serverSide, summarizeRequests, type ClientSummary, type MeasuredRequest, type ServerSide } from './measure.ts';
import { planPrompts, promptSourceText, type PlannedRequest, type PromptSource } from './prompts.ts';
import { endpointTable, type EndpointReportHeader } from './endpoint-report.ts';
import { Semaphore } from './semaphore.ts';
import { scrapeHistograms } from './server-histograms.ts';
import type { ServerInfo } from './server-info.ts';
import { ServerWatch } from './server-watch.ts';
import { streamCompletion } from './stream-client.ts';
import { headers, type EndpointTarget } from './target.ts';

export { unmeasuredOnServer } from './measure.ts';
export { ServerGoneError, ServerWatch } from './server-watch.ts';

export interface EndpointSession {
  target: EndpointTarget;
  server: ServerInfo;
  maxConcurrency: number | null;
}

function lengthSpec(length: Length): WorkloadSpec['promptLength'] {
  if (length.values) return { values: length.values };
  return length.min === length.max ? length.min : { min: length.min, max: length.max };
}

export function endpointWorkload(settings: LabSettings): WorkloadSpec {
  const w = settings.workload;
  return {
    numRequests: w.requests,
    promptLength: lengthSpec(w.promptTokens),
    outputLength: lengthSpec(w.outputTokens),
    arrival: w.arrival === 'burst' ? { kind: 'burst' } : w.arrival === 'poisson' ? { kind: 'poisson', rate: w.rate } : { kind: 'gamma', rate: w.rate, burstiness: w.burstiness },
    sharedPrefixLength: w.sharedPrefix,
    seed: w.seed,
  };
}

/**
 * Resolves at `at` (performance.now() time), never before it, or at once when aborted. Node's
 * timers count whole milliseconds of a clock read at the start of the event-loop turn, so one
 * can fire up to a millisecond early: it is then set again for what is left.
 */
function sleepUntil(at: number, signal: AbortSignal | undefined): Promise<void> {
  if (at <= performance.now() || signal?.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    let timer = setTimeout(tick, Math.ceil(at - performance.now()));
    function tick() {
      const left = at - performance.now();
      if (left > 0 && !signal?.aborted) timer = setTimeout(tick, Math.ceil(left));
      else done();
    }
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

interface Sent {
  request: PlannedRequest;
  measured: MeasuredRequest;
}

/**
 * Sends every request of one run at its arrival time; requests never sent (aborted, or the
 * server found gone by `watch`) are left out.
 */
export async function replay(session: EndpointSession, requests: readonly PlannedRequest[], userSignal: AbortSignal | undefined, onDone: () => void, watch?: ServerWatch): Promise<Sent[]> {
  const start = performance.now();
  const slots = session.maxConcurrency === null ? null : new Semaphore(session.maxConcurrency);
  const sent: Sent[] = [];
  // The server found gone stops the run as Ctrl-C does: nothing more is sent, nor waited for.
  const signal = watch ? (userSignal ? AbortSignal.any([userSignal, watch.signal]) : watch.signal) : userSignal;
  await Promise.all(
    requests.map(async (request) => {
      await sleepUntil(start + request.arrivalMs, signal);
      if (signal?.aborted) return;
      await slots?.acquire();
      try {
        if (signal?.aborted || (await watch?.stopSending(userSignal))) return;
        const outcome = await streamCompletion(
          session.target,
          { model: session.server.model, prompt: request.prompt, maxTokens: request.maxTokens, ignoreEos: session.server.ignoreEos },
          signal,
        );
        watch?.record(outcome);
        // A request cut by Ctrl-C is not a failure of the server: it is not measured.
        if (signal?.aborted && outcome.error !== null) return;
        sent.push({ request, measured: { promptTokens: request.promptTokens, outcome } });
        onDone();
      } finally {
        slots?.release();
      }
    }),
  );
  return sent;
}

function timeline(sent: Sent, origin: number): RequestTimeline {
  const { outcome, promptTokens } = sent.measured;
  const at = outcome.sentAt - origin;
  return {
    promptTokens: promptTokens ?? outcome.usagePromptTokens ?? 0,
    submitStart: at,
    submitEnd: at,
    // The client cannot see admission; the server's histograms give the split instead.
    admit: at,
    tokenTimes: outcome.chunkTimes.map((t) => t - origin),
    finish: outcome.error === null ? outcome.endedAt - origin : null,
    error: outcome.error,
  };
}

/** A point's run, as the engine's runner returns it, with the endpoint's own report. */
export type EndpointPointRun = Omit<PointRun, 'report'> & { report: EndpointReport | null };

export interface EndpointReport {
  kind: 'endpoint';
  endpoint: Omit<EndpointReportHeader, 'promptSource'> & { promptSource: PromptSource };
  client: ClientSummary;
  server: ServerSide;
  /** Per measured run, every request's stamps (ms from the run's start), as the engine's report has them. */
  runs: Array<{ timelines: RequestTimeline[] }>;
}

/**
 * One point; `watch` (one for the whole run: it counts the requests the server answered)
 * throws ServerGoneError once the server stopped answering, the point's requests discarded.
 */
export async function runEndpointPoint(session: EndpointSession, settings: LabSettings, hooks: PointHooks = {}, watch = new ServerWatch(session.target)): Promise<EndpointPointRun> {
  const { signal } = hooks;
  const plan = await planPrompts(session.target, session.server.model, endpointWorkload(settings));
  const total = plan.requests.length;
  const scrapeHeaders = headers(session.target);
  for (let run = 1; run <= settings.warmup && !signal?.aborted; run++) {
    let done = 0;
    hooks.onProgress?.({ phase: 'warmup', run, runs: settings.warmup, requestsDone: 0, requestsTotal: total });
    await replay(session, plan.requests, signal, () => hooks.onProgress?.({ phase: 'warmup', run, runs: settings.warmup, requestsDone: ++done, requestsTotal: total }), watch);
    watch.throwIfGone();
  }
  if (signal?.aborted) return { completed: false, metrics: {}, report: null, table: '', device: null, backend: null };

  const before = await scrapeHistograms(session.target.root, scrapeHeaders, session.server.model);
  const runs: Array<{ timelines: RequestTimeline[] }> = [];
  const measured: MeasuredRequest[] = [];
  for (let run = 1; run <= settings.repeats && !signal?.aborted; run++) {
    let done = 0;
    hooks.onProgress?.({ phase: 'measure', run, runs: settings.repeats, requestsDone: 0, requestsTotal: total });
    const origin = performance.now();
    const sent = await replay(session, plan.requests, signal, () => hooks.onProgress?.({ phase: 'measure', run, runs: settings.repeats, requestsDone: ++done, requestsTotal: total }), watch);
    watch.throwIfGone();
    runs.push({ timelines: sent.map((s) => timeline(s, origin)) });
    measured.push(...sent.map((s) => s.measured));
  }
  const after = await scrapeHistograms(session.target.root, scrapeHeaders, session.server.model);
  const completed = !signal?.aborted && measured.length === total * settings.repeats;
  if (measured.length === 0) return { completed: false, metrics: {}, report: null, table: '', device: null, backend: null };

  const client = summarizeRequests(measured, settings.slo);
  // Not one request answered (the server stopped during the warm-up, or refuses every
  // request): there is nothing to measure, and a run stored as "ok" at 0 tokens/s would stand
  // in history and on the cards as the latest complete run. It fails, saying why.
  if (completed && client.completed === 0) {
    const reasons = client.failures.map((f) => `${f.count} × ${f.reason}`).join('; ');
    throw new Error(`every one of the ${measured.length} measured requests failed: ${reasons}`);
  }
  const server = serverSide(before, after);
  const header = {
    url: session.target.shown,
    model: session.server.model,
    serverVersion: session.server.version,
    promptSource: promptSourceText[plan.source],
    ignoreEos: session.server.ignoreEos,
    maxConcurrency: session.maxConcurrency,
  };
  return {
    completed,
    metrics: endpointMetrics(client, server),
    bounds: endpointBounds(server),
    server: endpointServerFigures(server),
    report: { kind: 'endpoint', endpoint: { ...header, promptSource: plan.source }, client, server, runs },
    table: endpointTable(header, client, server),
    device: endpointDescription(session),
    backend: 'endpoint',
  };
}

/** "http://127.0.0.1:8000/v1 · gpt2 · vllm 0.11.0": what ran, as history shows it. */
export function endpointDescription(session: EndpointSession): string {
  return [session.target.shown, session.server.model, session.server.version ?? 'server version unknown'].join(' · ');
}
