// One line for everything that can go wrong talking to a server: refused connections,
// unknown hosts, TLS, timeouts, HTTP errors (with the server's own message when it sends
// OpenAI's error shape). Never a stack trace.

export class EndpointError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EndpointError';
  }
}

/** An HTTP answer that was not 2xx, with the server's message. */
export class HttpStatusError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.name = 'HttpStatusError';
    this.status = status;
  }
}

const tlsCodes = /CERT|SSL|TLS|UNABLE_TO_VERIFY|SELF_SIGNED|ALTNAME|ERR_SSL/;

/** Why a request failed, in a few words (what `vllm bench serve` lists per failed request). */
export function failureReason(error: unknown): string {
  if (error instanceof HttpStatusError) return `HTTP ${error.status}: ${error.message}`;
  if (error instanceof EndpointError) return error.message;
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) return error.name === 'TimeoutError' ? 'timed out' : 'aborted';
  const cause = error instanceof Error ? (error.cause as { code?: string; message?: string } | undefined) : undefined;
  const code = cause?.code ?? (error as { code?: string } | null)?.code;
  switch (code) {
    case 'ECONNREFUSED':
      return 'connection refused (is the server running, and on this port?)';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'unknown host';
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
      return 'the server closed the connection';
    case 'ETIMEDOUT':
    case 'UND_ERR_CONNECT_TIMEOUT':
      return 'connecting timed out';
    case 'UND_ERR_HEADERS_TIMEOUT':
    case 'UND_ERR_BODY_TIMEOUT':
      return 'timed out waiting for the server';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return 'host unreachable';
  }
  if (code && tlsCodes.test(code)) return tlsReason(code);
  const message = cause?.message ?? (error instanceof Error ? error.message : String(error));
  return message.split('\n')[0];
}

/**
 * "connection refused", "connection reset" or "host unreachable" when a request failed for
 * want of a server to talk to (no process on the port, the connection torn down, no route),
 * else null. HTTP errors (429, 503) come from a live server and are not among them.
 */
export function connectionLost(error: unknown): string | null {
  const cause = error instanceof Error ? (error.cause as { code?: string } | undefined) : undefined;
  switch (cause?.code ?? (error as { code?: string } | null)?.code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
      return 'connection reset';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return 'host unreachable';
  }
  return null;
}

/** Whether a request was given up on because the server sent nothing for --request-timeout. */
export function isSilenceTimeout(error: unknown): boolean {
  const code = (error as { code?: string } | null)?.code ?? ((error instanceof Error ? error.cause : undefined) as { code?: string } | undefined)?.code;
  return code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT';
}

/** OpenSSL's own messages run over several lines of internals: say what the code means. */
function tlsReason(code: string): string {
  if (code === 'ERR_SSL_WRONG_VERSION_NUMBER' || code === 'ERR_SSL_PACKET_LENGTH_TOO_LONG') return `TLS error: the server does not speak TLS on this port (http:// rather than https://?) (${code})`;
  if (/SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER/.test(code)) return `TLS error: the server's certificate is not trusted here (${code}; NODE_EXTRA_CA_CERTS can add its CA)`;
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') return `TLS error: the server's certificate does not name this host (${code})`;
  if (code === 'CERT_HAS_EXPIRED') return `TLS error: the server's certificate has expired (${code})`;
  return `TLS error (${code})`;
}

/** The message of an error body: OpenAI's `{"error": {"message"}}`, vLLM's `{"message"}`, else the text. */
export function errorBodyMessage(text: string): string {
  try {
    const body = JSON.parse(text) as { error?: { message?: unknown } | string; message?: unknown; detail?: unknown };
    if (typeof body.error === 'object' && typeof body.error?.message === 'string') return body.error.message;
    if (typeof body.error === 'string') return body.error;
    if (typeof body.message === 'string') return body.message;
    if (typeof body.detail === 'string') return body.detail;
  } catch {
    // not JSON: the text itself
  }
  const line = text.trim().split('\n')[0] ?? '';
  return line.length > 200 ? `${line.slice(0, 200)}…` : line || '(empty body)';
}
