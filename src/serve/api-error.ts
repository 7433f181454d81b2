// Errors as OpenAI's API returns them and vLLM's server mirrors: an HTTP status and
// `{"error": {"message", "type", "param", "code"}}`, where vLLM puts the status in `code`
// and names the type after it (BadRequestError, ...).

export interface ErrorBody {
  error: { message: string; type: string; param: string | null; code: number };
}

const typeByStatus: Record<number, string> = {
  400: 'BadRequestError',
  404: 'NotFoundError',
  405: 'MethodNotAllowedError',
  413: 'BadRequestError',
  415: 'UnsupportedMediaTypeError',
  429: 'TooManyRequestsError',
  500: 'InternalServerError',
  503: 'ServiceUnavailableError',
};

export class ApiError extends Error {
  readonly status: number;
  readonly param: string | null;

  constructor(status: number, message: string, param: string | null = null) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.param = param;
  }

  body(): ErrorBody {
    return errorBody(this.status, this.message, this.param);
  }
}

export function errorBody(status: number, message: string, param: string | null = null): ErrorBody {
  return { error: { message, type: typeByStatus[status] ?? 'BadRequestError', param, code: status } };
}

export const badRequest = (message: string, param: string | null = null) => new ApiError(400, message, param);
