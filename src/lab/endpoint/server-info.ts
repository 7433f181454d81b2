// What the run learns about the server before its first measured request: that it answers
// at all (else one clear line and nothing is stored), which model to ask for, its version
// (/version, as vLLM has it), and whether it accepts `ignore_eos` (needed for exact output
// lengths; OpenAI's own API refuses unknown fields).
import { EndpointError, errorBodyMessage, failureReason, HttpStatusError } from './endpoint-errors.ts';
import { httpCall } from './http-call.ts';
import { headers, type EndpointTarget } from './target.ts';

export interface ServerInfo {
  model: string;
  /** "vllm 0.11.0", "kb 0.1.0", or null when /version is not offered. */
  version: string | null;
  ignoreEos: boolean;
}

async function getJson(target: EndpointTarget, url: string): Promise<unknown> {
  const response = await httpCall(url, { headers: headers(target), timeoutMs: Math.min(target.timeoutMs, 30_000) });
  if (!response.ok) throw new HttpStatusError(response.status, errorBodyMessage(response.text));
  return JSON.parse(response.text);
}

export async function probeServer(target: EndpointTarget, wanted: string | undefined): Promise<ServerInfo> {
  let models: string[];
  try {
    const list = (await getJson(target, `${target.base}/models`)) as { data?: Array<{ id?: unknown }> };
    models = (list.data ?? []).flatMap((m) => (typeof m.id === 'string' ? [m.id] : []));
  } catch (error) {
    throw new EndpointError(`${target.shown}: ${failureReason(error)}${probeHint(target, error)}`);
  }
  const model = wanted ?? models[0];
  if (model === undefined) throw new EndpointError(`${target.shown}/models lists no model; name one with --model`);
  if (wanted !== undefined && models.length > 0 && !models.includes(wanted)) {
    throw new EndpointError(`--model ${wanted}: the server does not serve it; it serves ${models.join(', ')}`);
  }
  return { model, version: await serverVersion(target), ignoreEos: await acceptsIgnoreEos(target, model) };
}

/**
 * What to do about the first call failing, where the reason alone does not say: "HTTP 401:
 * Unauthorized" named no flag, "HTTP 404: Not Found" no URL, and "timed out" not what waited.
 */
function probeHint(target: EndpointTarget, error: unknown): string {
  if (error instanceof HttpStatusError && (error.status === 401 || error.status === 403)) {
    return target.apiKeyEnv === null
      ? ' (the server wants an API key: put it in an environment variable and name it with --api-key-env, e.g. --api-key-env VLLM_API_KEY)'
      : ` (the server refused the key in $${target.apiKeyEnv}, given with --api-key-env: is it the key the server was started with?)`;
  }
  if (error instanceof HttpStatusError && error.status === 404) {
    return ` (--endpoint takes the server's OpenAI base URL, the part before /completions, e.g. http://host:8000/v1)`;
  }
  if (error instanceof Error && error.name === 'TimeoutError') {
    return ` (no answer to GET ${target.base}/models in ${Math.min(target.timeoutMs, 30_000) / 1000} s: is the server still starting, or another program on this port?)`;
  }
  return '';
}

async function serverVersion(target: EndpointTarget): Promise<string | null> {
  try {
    const body = (await getJson(target, `${target.root}/version`)) as { version?: unknown; name?: unknown };
    if (typeof body.version !== 'string') return null;
    return typeof body.name === 'string' ? `${body.name} ${body.version}` : body.version;
  } catch {
    return null;
  }
}

/** One token with `ignore_eos`: a 400 that names the field means the server does not take it. */
async function acceptsIgnoreEos(target: EndpointTarget, model: string): Promise<boolean> {
  const response = await httpCall(`${target.base}/completions`, {
    method: 'POST',
    headers: headers(target, true),
    body: JSON.stringify({ model, prompt: 'Hello', max_tokens: 1, ignore_eos: true }),
    timeoutMs: Math.min(target.timeoutMs, 60_000),
  }).catch((error: unknown) => {
    throw new EndpointError(`${target.shown}: ${failureReason(error)}`);
  });
  if (response.ok) return true;
  const message = errorBodyMessage(response.text);
  if (response.status === 400 && /ignore_eos/.test(message)) return false;
  const refused = response.status === 401 || response.status === 403 ? probeHint(target, new HttpStatusError(response.status, message)) : '';
  throw new EndpointError(`${target.shown}: a one-token completion failed: HTTP ${response.status}: ${message}${refused}`);
}
