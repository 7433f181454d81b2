// Where an endpoint run sends its requests: the OpenAI-compatible base URL the user gave
// (…/v1), the server's root beside it (vLLM serves /metrics, /tokenize and /version there),
// the key from an environment variable, and the URL as stored and shown, without credentials.
import { EndpointError } from './endpoint-errors.ts';

export interface EndpointTarget {
  /** The OpenAI base URL, without a trailing slash and without credentials: `${base}/completions`. */
  base: string;
  /** The server's root: the base without its trailing /v1. */
  root: string;
  /** The URL as stored with the run and printed: no user, password or query. */
  shown: string;
  /** Sent as `Authorization`; never stored. */
  authorization: string | null;
  /** The environment variable the key came from (--api-key-env), named when the server refuses it. */
  apiKeyEnv: string | null;
  /** Longest silence of the server within one request (no headers, no byte), ms. */
  timeoutMs: number;
}

export interface TargetOptions {
  /** The name of an environment variable holding the API key (--api-key-env). */
  apiKeyEnv?: string;
  env?: NodeJS.ProcessEnv;
  timeoutMs?: number;
}

export function parseEndpoint(text: string, options: TargetOptions = {}): EndpointTarget {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new EndpointError(`--endpoint ${text}: not a URL; expected e.g. http://127.0.0.1:8000/v1`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new EndpointError(`--endpoint ${text}: expected an http:// or https:// URL, got ${url.protocol}`);
  // fetch refuses URLs with credentials; they become a Basic header and never reach the store.
  let authorization: string | null = null;
  if (url.username || url.password) {
    authorization = `Basic ${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString('base64')}`;
    url.username = '';
    url.password = '';
  }
  const env = options.env ?? process.env;
  if (options.apiKeyEnv !== undefined) {
    const key = env[options.apiKeyEnv];
    if (key === undefined || key === '') throw new EndpointError(`--api-key-env ${options.apiKeyEnv}: that environment variable is not set`);
    authorization = `Bearer ${key}`;
  }
  const query = url.search;
  url.search = '';
  url.hash = '';
  // A server's root (http://host:8000, as kb serve prints it and vllm bench's --base-url takes
  // it) means its OpenAI API under /v1; a URL with a path is taken as the base it names.
  // Trailing slashes first: "http://host:8000//" is the root too (it was taken as a base
  // without /v1, and every call answered 404).
  const path = url.pathname.replace(/\/+$/, '');
  url.pathname = path === '' ? '/v1' : path;
  // A route pasted whole (kb serve prints a curl to /v1/completions; a client's docs name
  // /v1/chat/completions) was taken as the base: the run asked for …/completions/models and
  // stopped on "HTTP 404: no route GET /v1/completions/models". Its base is named instead.
  const route = /\/(chat\/completions|completions|models)$/.exec(url.pathname);
  if (route) {
    const suggested = new URL(url.toString());
    suggested.pathname = url.pathname.slice(0, route.index) || '/';
    throw new EndpointError(`--endpoint ${url.toString()}: that is the server's /${route[1]} route, not its OpenAI base URL; try --endpoint ${suggested.toString().replace(/\/+$/, '')}`);
  }
  const base = url.toString().replace(/\/+$/, '');
  const root = base.replace(/\/v1$/, '');
  return {
    base,
    root,
    shown: base + (query ? ' (query not shown)' : ''),
    authorization,
    apiKeyEnv: options.apiKeyEnv ?? null,
    timeoutMs: options.timeoutMs ?? 300_000,
  };
}

export function headers(target: EndpointTarget, json = false): Record<string, string> {
  return { ...(json ? { 'content-type': 'application/json' } : {}), ...(target.authorization ? { authorization: target.authorization } : {}) };
}
