# The official `openai` Python client measuring one burst of streaming completions the way
# kb's endpoint client does: TTFT from just before the request to the first chunk with text,
# output tokens from usage, throughput over the first send to the last end. Prints JSON.
#   python openai_client.py URL MODEL REQUESTS PROMPT_TOKENS MAX_TOKENS
import asyncio
import json
import sys
import time

from openai import AsyncOpenAI


def percentile(values, p):
    s = sorted(values)
    rank = p / 100 * (len(s) - 1)
    lo, hi = int(rank), min(int(rank) + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (rank - lo)


async def one(client, model, prompt, max_tokens):
    sent = time.perf_counter()
    first = None
    tokens = 0
    stream = await client.completions.create(
        model=model, prompt=prompt, max_tokens=max_tokens, temperature=0, stream=True,
        stream_options={"include_usage": True}, extra_body={"ignore_eos": True})
    async for chunk in stream:
        if chunk.choices and chunk.choices[0].text and first is None:
            first = time.perf_counter()
        if chunk.usage:
            tokens = chunk.usage.completion_tokens
    return sent, first, time.perf_counter(), tokens


async def main():
    url, model, n, prompt_tokens, max_tokens = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
    client = AsyncOpenAI(base_url=url, api_key="unused", max_retries=0)
    prompts = [[(i * 7919 + k * 31) % 50000 for k in range(prompt_tokens)] for i in range(n)]
    await asyncio.gather(*(one(client, model, p, max_tokens) for p in prompts[:8]))  # warm-up
    results = await asyncio.gather(*(one(client, model, p, max_tokens) for p in prompts))
    start = min(r[0] for r in results)
    end = max(r[2] for r in results)
    ttfts = [(r[1] - r[0]) * 1000 for r in results]
    print(json.dumps({"ttft_p50_ms": percentile(ttfts, 50), "output_tps": sum(r[3] for r in results) / (end - start)}))


asyncio.run(main())
