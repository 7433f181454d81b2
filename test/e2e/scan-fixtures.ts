// Knowledge-base files for the scan, init and doctor end-to-end tests, and helpers to
// fingerprint a folder and read a scan's database.
import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

export function note(title: string, options: { id?: string; extra?: string; body?: string } = {}): string {
  return [
    '---',
    "created: '2025-10-19'",
    'last_reviewed: null',
    "next_review: '2025-10-19'",
    'review_count: 0',
    'difficulty: medium',
    'mastery_level: 0.0',
    'tags:',
    '- inference',
    'related_outlines: []',
    ...(options.id ? [`id: ${options.id}`] : []),
    ...(options.extra ? [options.extra] : []),
    '---',
    `# ${title}`,
    '',
    '## 答案',
    '',
    options.body ?? `${title} 的答案。`,
    '',
    '```python',
    'print("prefill")',
    '```',
    '',
  ].join('\n');
}

export const cardsFile = [
  '---',
  'tags: [metrics]',
  '---',
  '## What does TTFT measure?',
  '',
  'Time from sending a request to its first token.',
  '',
  '## What does TPOT measure?',
  '',
  'Average time per output token after the first.',
  '',
].join('\n');

/** sha256 and mtime of every file under `root` except kb's own state folder. */
export function fingerprint(root: string): Map<string, { sha: string; mtimeMs: number; text: string }> {
  const files = new Map<string, { sha: string; mtimeMs: number; text: string }>();
  for (const entry of readdirSync(root, { recursive: true, withFileTypes: true })) {
    const abs = join(entry.parentPath, entry.name);
    const path = relative(root, abs);
    if (path.startsWith('.kb') || !entry.isFile()) continue;
    const bytes = readFileSync(abs);
    files.set(path, { sha: createHash('sha256').update(bytes).digest('hex'), mtimeMs: statSync(abs).mtimeMs, text: bytes.toString('utf8') });
  }
  return files;
}

/** Removes what kb scan inserts (an `id:` line, a `<!-- kb:id=… -->` line) to compare with the original. */
export function withoutIds(text: string): string {
  return text.replace(/^id: [a-z2-7]{12}\r?\n/m, '').replace(/^<!-- kb:id=[a-z2-7]{12} -->\r?\n/gm, '');
}

export function openDb(root: string): Database.Database {
  return new Database(join(root, '.kb', 'kb.db'), { readonly: true });
}

export function parseJson<T = any>(stdout: string): T {
  return JSON.parse(stdout) as T;
}
