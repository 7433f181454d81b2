// The official `openai` Node client measuring one burst of streaming completions the way kb's
// endpoint client does (and as openai_client.py does in Python): TTFT from just before the
// request to the first chunk with text, output tokens from usage, throughput over the first
// send to the last end.
import OpenAI from 'openai';
import { percentile } from '../../src/engine/metrics/percentile.ts';

export interface ClientFigures {
  ttftP50Ms: number;
  outputTps: number;
}

async function one(client: OpenAI, model: string, prompt: number[], maxTokens: number) {
  const sent = performance.now();
  let first: number | null = null;
  let tokens = 0;
  // ignore_eos is vLLM's extension of the request body; the client passes unknown fields on.
  const stream = await client.completions.create({ model, prompt, max_tokens: maxTokens, temperature: 0, stream: true, stream_options: { include_usage: true }, ignore_eos: true } as OpenAI.CompletionCreateParamsStreaming);
  for await (const chunk of stream) {
    if (first === null && chunk.choices[0]?.text) first = performance.now();
    if (chunk.usage) tokens = chunk.usage.completion_tokens;
  }
  return { sent, first: first ?? performance.now(), end: performance.now(), tokens };
}

export async function openaiNodeBurst(url: string, model: string, prompts: number[][], maxTokens: number): Promise<ClientFigures> {
  const client = new OpenAI({ baseURL: url, apiKey: 'unused', maxRetries: 0 });
  await Promise.all(prompts.slice(0, 8).map((prompt) => one(client, model, prompt, maxTokens))); // warm-up
  const results = await Promise.all(prompts.map((prompt) => one(client, model, prompt, maxTokens)));
  const start = Math.min(...results.map((r) => r.sent));
  const end = Math.max(...results.map((r) => r.end));
  return {
    ttftP50Ms: percentile(results.map((r) => r.first - r.sent), 50),
    outputTps: results.reduce((sum, r) => sum + r.tokens, 0) / ((end - start) / 1000),
  };
}
