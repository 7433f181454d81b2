// Prompts of exact lengths. A lab asks for N prompt tokens, so the prompt is sent as token
// ids wherever their meaning is known: for a GPT-2 model, GPT-2 BPE ids drawn locally (the
// engine's own workload generator, so a lab sends the server what it gives kb's engine);
// for another model, slices of a text the server itself tokenized (/tokenize, as vLLM and
// kb serve offer it). With neither, text of about N words is sent and the lengths are the
// ones the server's `usage` reports.
import { generateWorkload, type WorkloadRequest } from '../../engine/index.ts';
import { headers, type EndpointTarget } from './target.ts';
import { httpCall } from './http-call.ts';

export type PromptSource = 'gpt2-bpe' | 'server-tokenize' | 'usage';

export const promptSourceText: Record<PromptSource, string> = {
  'gpt2-bpe': 'exact (GPT-2 BPE token ids, drawn locally)',
  'server-tokenize': "exact (token ids from the server's /tokenize)",
  usage: "as the server's usage reports them (no /tokenize: prompts sent as text)",
};

export interface PlannedRequest {
  prompt: string | number[];
  /** Known before sending, or null (then usage tells). */
  promptTokens: number | null;
  maxTokens: number;
  arrivalMs: number;
}

const GPT2_VOCAB = 50257;

export function isGpt2Model(model: string): boolean {
  return /(^|[/_-])(distil)?gpt-?2($|[/_.-])/i.test(model);
}

// Plain words that tokenize to about one token each in most vocabularies.
const words = 'the time of day when light falls on water and the river moves past a town where people walk to work and talk about small things'.split(' ');

export function wordsText(count: number, offset: number): string {
  return Array.from({ length: count }, (_, i) => words[(i + offset) % words.length]).join(' ');
}

/** Token ids for `text` from the server's /tokenize, or null when it has none. */
export async function serverTokenize(target: EndpointTarget, model: string, text: string): Promise<number[] | null> {
  try {
    const response = await httpCall(`${target.root}/tokenize`, {
      method: 'POST',
      headers: headers(target, true),
      body: JSON.stringify({ model, prompt: text, add_special_tokens: false }),
      timeoutMs: 30_000,
    });
    if (!response.ok) return null;
    const body = JSON.parse(response.text) as { tokens?: unknown };
    return Array.isArray(body.tokens) && body.tokens.every((t) => Number.isInteger(t)) ? (body.tokens as number[]) : null;
  } catch {
    return null;
  }
}

export interface PromptPlan {
  source: PromptSource;
  requests: PlannedRequest[];
}

/**
 * The requests of one run: lengths and arrivals from the engine's seeded generator (the same
 * workload the in-process lab runs), prompts as the source allows.
 */
export async function planPrompts(
  target: EndpointTarget,
  model: string,
  workload: Parameters<typeof generateWorkload>[0],
): Promise<PromptPlan> {
  const drawn = generateWorkload(workload, GPT2_VOCAB);
  const outputOf = (r: WorkloadRequest) => r.stopAfterTokens ?? r.maxNewTokens;
  if (isGpt2Model(model)) {
    return { source: 'gpt2-bpe', requests: drawn.map((r) => ({ prompt: r.promptIds, promptTokens: r.promptIds.length, maxTokens: outputOf(r), arrivalMs: r.arrivalMs })) };
  }
  // A loop, not Math.max(...): a workload can hold more requests than a call has room for arguments.
  const longest = drawn.reduce((top, r) => Math.max(top, r.promptIds.length), 0);
  // Room for every request to start at a different place in the text, so prompts differ.
  const needed = longest + Math.min(drawn.length, 4096);
  let ids = await serverTokenize(target, model, wordsText(needed, 0));
  if (ids !== null && ids.length < needed) ids = await serverTokenize(target, model, wordsText(needed * 4, 0));
  if (ids !== null && ids.length >= longest + 1) {
    const base = ids;
    const shared = workload.sharedPrefixLength ?? 0;
    return {
      source: 'server-tokenize',
      requests: drawn.map((r, i) => {
        const length = r.promptIds.length;
        const start = shared > 0 ? 0 : (i * 7919) % (base.length - length + 1);
        // A shared prefix: the same first tokens, then a slice that differs per request.
        const prompt = shared > 0 ? [...base.slice(0, shared), ...rotate(base, shared + 1 + i, length - shared)] : base.slice(start, start + length);
        return { prompt, promptTokens: prompt.length, maxTokens: outputOf(r), arrivalMs: r.arrivalMs };
      }),
    };
  }
  return { source: 'usage', requests: drawn.map((r, i) => ({ prompt: wordsText(r.promptIds.length, i), promptTokens: null, maxTokens: outputOf(r), arrivalMs: r.arrivalMs })) };
}

function rotate(base: readonly number[], start: number, length: number): number[] {
  return Array.from({ length }, (_, k) => base[(start + k) % base.length]);
}
