// Shared fixtures for the knowledge-base parsing tests: temp folders and a seed-000 style note.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export function tempKb(): string {
  return mkdtempSync(join(tmpdir(), 'kb-parse-'));
}

export function put(root: string, path: string, content: string | Buffer): string {
  const abs = join(root, path);
  mkdirSync(dirname(abs), { recursive: true });
  writeFileSync(abs, content);
  return abs;
}

/** A note in the reference format of seed 000 (our own words). */
export const SEED_STYLE_NOTE = `---
created: '2025-10-19'
last_reviewed: null
next_review: '2025-10-19'
review_count: 0
difficulty: medium
mastery_level: 0.0
tags:
- vllm
- vllm/ttft.md
related_outlines: []
---
# 什么是 TTFT，它和吞吐量有什么关系？

## 面试标准答案（精简版）

**TTFT 是请求提交到第一个 token 返回的时间，主要花在排队和 prefill 上。**

## 详细解析

\`\`\`python
# 这不是标题
ttft = first_token - submit
\`\`\`

更多内容。
`;

export const TPOT_CARDS = `---
tags: [metrics, interview]
lab: ttft-breakdown
---
# Latency metrics

## A request's TTFT is {ttft} s and its {n} tokens end at {total} s. TPOT?
\`\`\`kb-calc
vars:
  ttft: { min: 0.2, max: 1.0, step: 0.1 }   # drawn from a range
  n: { choose: [50, 100, 200] }             # drawn from a list
  total: ttft + n * 0.02                    # an expression of earlier variables
answer: (total - ttft) / n * 1000
unit: ms
tolerance: 1%
explain: TPOT = (total - TTFT) / n = ({total} - {ttft}) / {n} s = {answer} ms
\`\`\`

## What does TTFT measure?
lab: queue-wait
From submitting a request to its first output token.
`;
