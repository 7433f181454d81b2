// kb serve: the bundled engine behind an OpenAI-compatible HTTP API (SSE streaming) with
// vLLM's Prometheus metric names, so the industry's clients, benchmarks and dashboards run
// against kb. Runs until SIGINT/SIGTERM, then ends open streams and exits 0.
import { counted } from './plural.ts';
import { availableParallelism } from 'node:os';
import { Option, type Command } from 'commander';
import { UserError } from './errors.ts';
import { numberOption, wholeNumberIn } from './number-option.ts';
import packageJson from '../../package.json' with { type: 'json' };
import { helpText } from './help-layout.ts';
import type { ServeAppOptions } from '../serve/serve-app.ts';

interface ServeFlags {
  model?: string;
  weights?: string;
  servedModelName?: string;
  backend: string;
  threads?: string;
  host: string;
  port: string;
  set: string[];
  maxWaiting: string;
  apiServerCount?: string;
  quiet?: boolean;
}

const collect = (value: string, previous: string[]) => [...previous, value];
/** Within the 5 s a supervisor usually allows, even if a connection will not close. */
const SHUTDOWN_DEADLINE_MS = 4500;

export function register(program: Command): void {
  program
    .command('serve')
    .description(
      'serve the bundled engine over HTTP as an OpenAI-compatible server: /v1/completions, /v1/chat/completions ' +
        '(streaming or not), /v1/models, /tokenize, /detokenize, /health, /version and /metrics with vLLM\'s metric names (plus kb:engine_* step time)',
    )
    .option('--model <name>', 'named model config with seeded synthetic weights: gpt2-tiny, gpt2 or gpt2-medium (default: "gpt2-tiny")')
    .option('--weights <dir>', 'a Hugging Face GPT-2 folder (config.json + model.safetensors) instead of --model')
    .option('--served-model-name <name>', 'the model id clients send and /v1/models lists (default: the --model name or the --weights path)')
    .option('--backend <name>', 'cpu, webgpu or auto (a hardware GPU, else cpu)', 'cpu')
    .option('--threads <n>', 'cpu backend threads, refused on webgpu (default: all cores but one in eight, or one per API server thread if more, left to the HTTP side)')
    .addOption(new Option('--host <host>', 'address to bind; loopback unless you choose otherwise').default('127.0.0.1', '127.0.0.1'))
    .addOption(numberOption('--port <port>', 'port to listen on (0: any free port)', 8000))
    .addOption(new Option('--set <engine.key=value>', 'an engine setting, as the labs take them (repeatable), e.g. --set engine.maxNumSeqs=32').argParser(collect).default([], 'none'))
    .addOption(numberOption('--max-waiting <n>', 'requests not yet started that the server holds; more get HTTP 429', 1024))
    .option(
      '--api-server-count <n>',
      "HTTP server threads sharing the port (vLLM's flag): a burst of requests is parsed and streamed by n threads at once; " +
        "on the cpu backend each takes a core from the engine's default threads (default: 1 on the cpu backend; on webgpu one per 4 cores, up to 4)",
    )
    .option('--quiet', 'no access log (one JSON line per request on stdout)')
    .addHelpText(
      'after',
      helpText('\nExample:\n  kb serve --model gpt2 --port 8000\n' +
        '  curl http://127.0.0.1:8000/v1/completions \\\n' +
        "       -H 'Content-Type: application/json' \\\n" +
        '       -d \'{"prompt": "The KV cache", "max_tokens": 16}\'\n' +
        '\nKeys for --set: the engine.* keys that kb lab --help lists.\n' +
        'Chat uses a plain template (System:/User:/Assistant: lines, see the README). Bad requests get HTTP 400 with\n' +
        "OpenAI's error shape; SIGINT or SIGTERM ends open streams and exits 0."),
    )
    .action(async (flags: ServeFlags) => {
      await serve(flags);
    });
}

function integerFlag(flag: string, text: string, min: number, max: number): number {
  // Plain decimal digits only (not " 80", which the trim let through, nor 0x50).
  const value = wholeNumberIn(text, min, max);
  if (value === null) throw new UserError(`${flag} must be an integer in [${min}, ${max}] (got ${text})`);
  return value;
}

async function serve(flags: ServeFlags): Promise<void> {
  const port = integerFlag('--port', flags.port, 0, 65535);
  const maxWaiting = integerFlag('--max-waiting', flags.maxWaiting, 1, 1_000_000);
  const threads = flags.threads === undefined ? undefined : integerFlag('--threads', flags.threads, 1, 256);
  // webgpu has no CPU threads: --threads was taken and ignored (as kb generate refuses it).
  if (threads !== undefined && flags.backend === 'webgpu') {
    throw new UserError(`--threads ${flags.threads}: the cpu backend's threads; it does nothing on webgpu (drop it, or use --backend cpu)`);
  }
  const { defaultApiServers, defaultServeThreads, serveEngineOptions } = await import('../serve/serve-engine-options.ts');
  const { createEngine, MAX_SHARED_THREADS } = await import('../engine/index.ts');
  const askedApiServers = flags.apiServerCount === undefined ? undefined : integerFlag('--api-server-count', flags.apiServerCount, 1, MAX_SHARED_THREADS);
  let engine;
  try {
    const options = serveEngineOptions({ model: flags.model, weightsDir: flags.weights, backend: flags.backend, set: flags.set });
    engine = await createEngine({ ...options, threads: threads ?? defaultServeThreads(availableParallelism(), askedApiServers) });
  } catch (error) {
    // Bad settings, models and weights files surface here with messages naming the flag or file.
    throw new UserError((error as Error).message);
  }
  const cores = availableParallelism();
  const apiServers = askedApiServers ?? defaultApiServers(engine.info.backend, cores);
  // `auto` that found a GPU: said, not refused (the same command runs on cpu elsewhere).
  if (threads !== undefined && engine.info.backend !== 'cpu') process.stderr.write(`kb: --threads ${threads} left out: auto chose ${engine.info.backend}, which has no CPU threads\n`);
  if (threads !== undefined && threads > cores && engine.info.backend === 'cpu') {
    // The engine's threads meet at a barrier after every op: one waiting for a core stalls the step.
    process.stderr.write(`kb: warning: --threads ${threads} on ${cores} cores: each step waits for threads that have no core (the default is ${defaultServeThreads(cores, apiServers)})\n`);
  }
  const modelName = flags.servedModelName ?? flags.weights ?? flags.model ?? engine.info.model.name;
  // A reader of the log that goes away (`kb serve | head`) ends the log, not the server: other
  // commands stop quietly on a closed pipe (main.ts), a server keeps serving its clients.
  let logging = true;
  process.stdout.removeAllListeners('error');
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    logging = false;
  });
  const out = (line: string) => {
    if (logging) process.stdout.write(`${line}\n`);
  };
  const serverOptions = { engine, modelName, version: packageJson.version, maxWaiting, ...(flags.quiet ? {} : { accessLog: out }) };
  let server: RunningServer;
  // Set once the server runs: a failed API server thread stops it, as a signal would.
  let stopOnFailure: ((error: Error) => void) | null = null;
  try {
    server = await startServer(serverOptions, apiServers, flags.host, port, (error) => stopOnFailure?.(error));
  } catch (error) {
    await engine.close();
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') throw new UserError(`port ${port} on ${flags.host} is in use; choose another with --port`);
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') throw new UserError(`--host ${flags.host}: no such address on this machine`);
    throw new UserError(`cannot listen on ${flags.host}:${port}: ${(error as Error).message}`);
  }
  // Each line within 80 columns: the curl example is broken with \ as a shell reads it.
  out(`kb serve: ${modelName} (${engine.info.description})`);
  out(`on ${server.url}${apiServers > 1 ? ` with ${apiServers} API server threads` : ''} (Ctrl-C to stop)`);
  out(`try: curl ${server.url}/v1/completions \\`);
  out(`       -H 'Content-Type: application/json' \\`);
  out(`       -d '{"model": ${JSON.stringify(modelName)}, "prompt": "The KV cache", "max_tokens": 16}'`);
  out(`or a lab: kb lab ttft-breakdown --endpoint ${server.url}/v1`);

  const exitCode = await new Promise<number>((resolve) => {
    const stop = async (signal: NodeJS.Signals | Error) => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      const failed = signal instanceof Error;
      // A failed thread's server stops with 1 though the shutdown runs out of time (it exited 0 then).
      const deadline = setTimeout(() => process.exit(failed ? 1 : 0), SHUTDOWN_DEADLINE_MS);
      deadline.unref();
      const why = failed ? `an API server thread failed (${signal.message})` : signal;
      process.stderr.write(`kb serve: ${why}, ending ${counted(await server.openRequests(), 'open request')} and stopping\n`);
      void server
        .close()
        .then(() => engine.close())
        .finally(() => resolve(failed ? 1 : 0));
    };
    stopOnFailure = (error) => void stop(error);
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  process.exit(exitCode);
}

interface RunningServer {
  url: string;
  openRequests(): Promise<number>;
  close(): Promise<void>;
}

/** One HTTP server on this thread, or (count above 1) that many on threads of their own sharing the port. */
async function startServer(options: ServeAppOptions, count: number, host: string, port: number, onThreadError: (error: Error) => void): Promise<RunningServer> {
  if (count === 1) {
    const { createServeApp } = await import('../serve/serve-app.ts');
    const server = createServeApp(options);
    const address = await server.listen(host, port);
    return { url: address.url, openRequests: async () => server.active.size, close: () => server.close() };
  }
  const { startApiServerPool } = await import('../serve/api-server-pool.ts');
  return startApiServerPool({ ...options, count, onThreadError }, host, port);
}
