// The request bodies kb serve accepts, checked with zod. Fields OpenAI or vLLM define that kb
// does not act on are accepted and ignored when harmless (user, presence_penalty at 0, ...)
// and refused when ignoring them would change the answer (n > 1, logprobs, echo).
import { z } from 'zod';
import { badRequest } from './api-error.ts';

/**
 * A union's own message: a value that fits none of its shapes (or is missing) got zod's bare
 * "Invalid input", which says neither what was wrong nor what to send (`{}` to
 * /v1/completions read "prompt: Invalid input").
 */
function unionError(shapes: string) {
  return { error: (issue: { input?: unknown }) => (issue.input === undefined ? `is required: ${shapes}` : `must be ${shapes} (got ${describe(issue.input)})`) };
}

/** What a client sent, in a few words: "a number", "an array of 17 strings". */
function describe(value: unknown): string {
  const kind = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);
  if (Array.isArray(value)) {
    if (value.length === 0) return 'an empty array';
    const kinds = [...new Set(value.map(kind))].map((k) => (value.length === 1 ? k : `${k}s`));
    return `an array of ${value.length} ${kinds.join(' and ')}`;
  }
  const k = kind(value);
  return k === 'null' ? 'null' : `${/^[aeiou]/.test(k) ? 'an' : 'a'} ${k}`;
}

const tokenIds = z.array(z.number().int().min(0)).min(1, 'must not be empty');
const prompt = z.union([z.string(), tokenIds, z.array(z.string()), z.array(tokenIds)], unionError('text or an array of whole-number token ids'));
const stop = z.union([z.string(), z.array(z.string()).max(16)], unionError('a string or an array of at most 16 strings')).nullish();

const sampling = {
  model: z.string().nullish(),
  max_tokens: z.number().int().min(1).nullish(),
  temperature: z.number().min(0).nullish(),
  top_p: z.number().gt(0).max(1).nullish(),
  // vLLM: -1 (and 0) switch top-k off.
  top_k: z.number().int().min(-1).nullish(),
  seed: z.number().int().nullish(),
  stop,
  stop_token_ids: z.array(z.number().int().min(0)).nullish(),
  ignore_eos: z.boolean().nullish(),
  stream: z.boolean().nullish(),
  stream_options: z.object({ include_usage: z.boolean().nullish(), continuous_usage_stats: z.boolean().nullish() }).nullish(),
  n: z.literal(1, { message: 'only n = 1 is supported' }).nullish(),
  user: z.string().nullish(),
};

export const completionSchema = z.object({
  ...sampling,
  prompt,
  echo: z.literal(false, { message: 'echo is not supported' }).nullish(),
  logprobs: z.null({ message: 'logprobs are not supported' }).optional(),
  suffix: z.null({ message: 'suffix is not supported' }).optional(),
});

const textPart = z.object({ type: z.literal('text'), text: z.string() });
export const chatMessageSchema = z.object({
  role: z.enum(['system', 'developer', 'user', 'assistant']),
  content: z.union([z.string(), z.array(textPart)], unionError('text or an array of {"type": "text", "text": ...} parts')).nullable(),
});

export const chatSchema = z.object({
  ...sampling,
  messages: z.array(chatMessageSchema).min(1, 'must hold at least one message'),
  max_completion_tokens: z.number().int().min(1).nullish(),
  logprobs: z.literal(false, { message: 'logprobs are not supported' }).nullish(),
});

const tokenizePromptSchema = z.object({ model: z.string().nullish(), prompt: z.string(), add_special_tokens: z.boolean().nullish(), return_token_strs: z.boolean().nullish() });
const tokenizeMessagesSchema = z.object({
  model: z.string().nullish(),
  messages: z.array(chatMessageSchema).min(1),
  add_generation_prompt: z.boolean().nullish(),
  return_token_strs: z.boolean().nullish(),
});

/**
 * The /tokenize body's shape, chosen by its keys: as a union, a body that fit neither (`{}`, a
 * prompt that is no string) got zod's bare "Invalid input", naming no field.
 */
export function tokenizeSchemaFor(body: unknown): z.ZodType<TokenizeBody> {
  return typeof body === 'object' && body !== null && 'messages' in body ? tokenizeMessagesSchema : tokenizePromptSchema;
}

export const detokenizeSchema = z.object({ model: z.string().nullish(), tokens: z.array(z.number().int().min(0)) });

export type CompletionBody = z.infer<typeof completionSchema>;
export type ChatBody = z.infer<typeof chatSchema>;
export type ChatMessage = z.infer<typeof chatMessageSchema>;
export type TokenizeBody = z.infer<typeof tokenizePromptSchema> | z.infer<typeof tokenizeMessagesSchema>;
export type DetokenizeBody = z.infer<typeof detokenizeSchema>;

/** Parses a body or throws a 400 naming the first bad field (OpenAI's `param`). */
export function parseBody<T>(schema: z.ZodType<T>, body: unknown): T {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw badRequest('the request body must be a JSON object');
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const param = issue.path.length > 0 ? issue.path.map(String).join('.') : null;
  throw badRequest(param ? `${param}: ${issue.message}` : issue.message, param);
}
