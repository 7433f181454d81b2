// A small knowledge base for the review tests: two notes in the seed format (with a comment
// and quoted dates, so byte-exact write-back is visible) and a cards file.
import Database from 'better-sqlite3';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runKb, writeKb } from '../helpers/kb-cli.ts';

export const TTFT_NOTE = `---
created: '2025-10-19'
last_reviewed: null
next_review: '2025-10-19'   # seeded by hand
review_count: 0
difficulty: medium
mastery_level: 0.0
tags:
- metrics
related_outlines: []
---
# What is TTFT and why does it matter for chat?

## Answer

Time to first token: from submitting a request to its **first** output token. Chat users feel it.

## Details

| 阶段 | 占比 |
|--|--|
| 排队 | 80% |
`;

export const TPOT_NOTE = `---
created: '2025-10-20'
last_reviewed: null
next_review: '2025-10-20'
review_count: 0
difficulty: easy
mastery_level: 0.0
tags: [metrics]
---
# What is TPOT?

## Answer

Time per output token after the first one.
`;

export interface ReviewKb {
  root: string;
  ttftPath: string;
  tpotPath: string;
}

/** Writes and scans the knowledge base (scan writes the card ids into the files). */
export function reviewKb(): ReviewKb {
  const root = writeKb({ 'notes/metrics/a-ttft.md': TTFT_NOTE, 'notes/metrics/b-tpot.md': TPOT_NOTE });
  const scan = runKb(['--kb', root, 'scan']);
  if (scan.code !== 0) throw new Error(`kb scan failed: ${scan.stderr}`);
  return { root, ttftPath: join(root, 'notes/metrics/a-ttft.md'), tpotPath: join(root, 'notes/metrics/b-tpot.md') };
}

export function openDb(root: string): Database.Database {
  return new Database(join(root, '.kb/kb.db'), { readonly: true });
}

export function cardIdOf(file: string): string {
  const match = /^id: (\S+)$/m.exec(readFileSync(file, 'utf8'));
  if (!match) throw new Error(`${file} has no id`);
  return match[1];
}
