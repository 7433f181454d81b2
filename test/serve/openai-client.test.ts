// The official `openai` client for Node against kb serve: completions and chat, streaming
// and not, as a user's code would call them.
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServe, type ServeFixture } from './serve-fixture.ts';

let serve: ServeFixture;
let client: OpenAI;

beforeAll(async () => {
  serve = await startServe();
  client = new OpenAI({ baseURL: `${serve.url}/v1`, apiKey: 'unused', maxRetries: 0 });
});
afterAll(async () => {
  await serve?.close();
});

// vLLM's extra sampling fields ride along in the body, as its docs show for this client.
const greedy = { temperature: 0, ignore_eos: true } as Record<string, unknown>;

describe('kb serve with the openai client', () => {
  it('lists the served model', async () => {
    const models = await client.models.list();
    expect(models.data.map((m) => m.id)).toEqual(['gpt2-tiny']);
  });

  it('completes a prompt, with usage counts, and streams the same text chunk by chunk', async () => {
    const full = await client.completions.create({ model: 'gpt2-tiny', prompt: 'The KV cache', max_tokens: 6, ...greedy });
    expect(full.object).toBe('text_completion');
    expect(full.choices[0].finish_reason).toBe('length');
    expect(full.usage).toEqual({ prompt_tokens: 4, completion_tokens: 6, total_tokens: 10 });
    expect(full.choices[0].text.length).toBeGreaterThan(0);

    const stream = await client.completions.create({
      model: 'gpt2-tiny',
      prompt: 'The KV cache',
      max_tokens: 6,
      stream: true,
      stream_options: { include_usage: true },
      ...greedy,
    });
    const texts: string[] = [];
    const finishes: (string | null)[] = [];
    let usage: OpenAI.CompletionUsage | null | undefined;
    for await (const chunk of stream) {
      if (chunk.choices.length > 0) {
        texts.push(chunk.choices[0].text);
        finishes.push(chunk.choices[0].finish_reason);
      } else usage = chunk.usage;
    }
    expect(texts.join('')).toBe(full.choices[0].text);
    // The finish reason rides on the chunk with the last text, not on an empty chunk after it.
    expect(finishes.at(-1)).toBe('length');
    expect(finishes.slice(0, -1).every((f) => f === null)).toBe(true);
    // One chunk a token, as vLLM sends them (a token that completes no character sends empty text).
    expect(texts).toHaveLength(6);
    expect(usage).toEqual({ prompt_tokens: 4, completion_tokens: 6, total_tokens: 10 });
  });

  it("gives every chunk the counts so far with vLLM's continuous_usage_stats (it was accepted and left usage null)", async () => {
    const ask = (kind: 'completion' | 'chat') => {
      const common = { model: 'gpt2-tiny', max_tokens: 5, stream: true as const, stream_options: { include_usage: true, continuous_usage_stats: true } as never, ...greedy };
      return kind === 'chat'
        ? client.chat.completions.create({ ...common, messages: [{ role: 'user', content: 'The KV cache' }] })
        : client.completions.create({ ...common, prompt: [464, 509, 53, 12940] });
    };
    for (const kind of ['completion', 'chat'] as const) {
      const counts: (number | undefined)[] = [];
      let prompt = 0;
      for await (const chunk of await ask(kind)) {
        counts.push(chunk.usage?.completion_tokens);
        prompt = chunk.usage!.prompt_tokens;
        expect(chunk.usage!.total_tokens).toBe(chunk.usage!.prompt_tokens + chunk.usage!.completion_tokens);
      }
      // 1, 2, ... 5, a chunk a token (the role chunk before them in chat), then the totals' chunk.
      expect(counts, kind).toEqual([...(kind === 'chat' ? [0] : []), 1, 2, 3, 4, 5, 5]);
      expect(prompt, kind).toBe(kind === 'chat' ? 10 : 4); // chat: "User: The KV cache\n\nAssistant:"
    }
  });

  it('sends a chunk for every token, with empty text for one whose text is held back (as vLLM does)', async () => {
    const full = await client.completions.create({ model: 'gpt2-tiny', prompt: 'Paged attention', max_tokens: 8, ...greedy });
    const text = full.choices[0].text;
    const first = (await client.completions.create({ model: 'gpt2-tiny', prompt: 'Paged attention', max_tokens: 1, ...greedy })).choices[0].text;
    // A stop string the first token's text begins and the second leaves: the first token holds
    // its text back until then (it sent no chunk, and the client's first chunk came a token
    // late: TTFT as vllm bench serve times it).
    const stop = `${first}\u0000`;
    const stream = await client.completions.create({ model: 'gpt2-tiny', prompt: 'Paged attention', max_tokens: 8, stop: [stop], stream: true, ...greedy });
    const texts: string[] = [];
    for await (const chunk of stream) if (chunk.choices.length > 0) texts.push(chunk.choices[0].text);
    expect(texts.join('')).toBe(text);
    expect(texts).toHaveLength(8);
    expect(texts[0]).toBe('');
  });

  it('takes the prompt as token ids', async () => {
    const byText = await client.completions.create({ model: 'gpt2-tiny', prompt: 'The KV cache', max_tokens: 4, ...greedy });
    const byIds = await client.completions.create({ model: 'gpt2-tiny', prompt: [464, 509, 53, 12940], max_tokens: 4, ...greedy });
    expect(byIds.usage?.prompt_tokens).toBe(4);
    expect(byIds.choices[0].text).toBe(byText.choices[0].text);
  });

  it('ends at a stop string, leaving it out, and says which one', async () => {
    const full = await client.completions.create({ model: 'gpt2-tiny', prompt: 'Paged attention', max_tokens: 12, ...greedy });
    const text = full.choices[0].text;
    // A stop string taken from the middle of what greedy decoding produces.
    const stop = text.slice(Math.floor(text.length / 2), Math.floor(text.length / 2) + 3);
    const cut = await client.completions.create({ model: 'gpt2-tiny', prompt: 'Paged attention', max_tokens: 12, stop: [stop], ...greedy });
    expect(cut.choices[0].text).toBe(text.slice(0, text.indexOf(stop)));
    expect(cut.choices[0].finish_reason).toBe('stop');
    expect((cut.choices[0] as unknown as { stop_reason: string }).stop_reason).toBe(stop);
  });

  it('samples reproducibly with a seed', async () => {
    const ask = () => client.completions.create({ model: 'gpt2-tiny', prompt: 'Hello', max_tokens: 8, temperature: 0.9, top_p: 0.9, seed: 7, ignore_eos: true } as never);
    const [a, b] = await Promise.all([ask(), ask()]);
    expect((a as OpenAI.Completion).choices[0].text).toBe((b as OpenAI.Completion).choices[0].text);
  });

  it('chats, streaming and not, through the documented template', async () => {
    const messages: OpenAI.ChatCompletionMessageParam[] = [
      { role: 'system', content: 'You explain inference.' },
      { role: 'user', content: 'What is TTFT?' },
    ];
    const reply = await client.chat.completions.create({ model: 'gpt2-tiny', messages, max_tokens: 5, ...greedy });
    expect(reply.object).toBe('chat.completion');
    expect(reply.choices[0].message.role).toBe('assistant');
    expect(reply.choices[0].finish_reason).toBe('length');
    expect(reply.usage?.completion_tokens).toBe(5);
    const tokenized = await fetch(`${serve.url}/tokenize`, { method: 'POST', body: JSON.stringify({ messages }) }).then((r) => r.json() as Promise<{ count: number }>);
    expect(reply.usage?.prompt_tokens).toBe(tokenized.count);

    const stream = await client.chat.completions.create({ model: 'gpt2-tiny', messages, max_tokens: 5, stream: true, ...greedy });
    let content = '';
    let role: string | undefined;
    let finish: string | null = null;
    for await (const chunk of stream) {
      expect(chunk.object).toBe('chat.completion.chunk');
      role ??= chunk.choices[0].delta.role;
      content += chunk.choices[0].delta.content ?? '';
      finish = chunk.choices[0].finish_reason ?? finish;
    }
    expect(role).toBe('assistant');
    expect(content).toBe(reply.choices[0].message.content);
    expect(finish).toBe('length');
  });

  it('reports a bad request as the client\'s BadRequestError with OpenAI\'s error shape', async () => {
    const error = await client.completions.create({ model: 'gpt2-tiny', prompt: 'x', max_tokens: 5000 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).status).toBe(400);
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).message).toMatch(/maximum context length is 1024 tokens/);
  });
});
