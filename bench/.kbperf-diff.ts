// Differential check: old (before) vs new parseKnowledgeFile and insertMissingIds.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { isDeepStrictEqual } from 'node:util';
const oldP = await import('/tmp/kb-before/src/kb/parse.ts');
const newP = await import('/work/main/src/kb/parse.ts');
const oldF = await import('/tmp/kb-before/src/kb/frontmatter.ts');
const newF = await import('/work/main/src/kb/frontmatter.ts');
const oldI = await import('/tmp/kb-before/src/kb/card-id.ts');
const newI = await import('/work/main/src/kb/card-id.ts');
let n = 0, bad = 0;
function cmp(path: string, text: string) {
  n++;
  const a = oldP.parseKnowledgeFile(path, text), b = newP.parseKnowledgeFile(path, text);
  const fa = oldF.parseFrontmatter(path, text), fb = newF.parseFrontmatter(path, text);
  let ia: unknown, ib: unknown;
  try { ia = oldI.insertMissingIds(text, a, (c: any) => `id${c.line}x`); } catch (e) { ia = String(e); }
  try { ib = newI.insertMissingIds(text, b, (c: any) => `id${c.line}x`); } catch (e) { ib = String(e); }
  const ok = isDeepStrictEqual(a, b) && isDeepStrictEqual({ ...fa, keyLines: [...fa.keyLines] }, { ...fb, keyLines: [...fb.keyLines] }) && isDeepStrictEqual(ia, ib);
  if (!ok && bad++ < 5) console.log('DIFF', path, JSON.stringify(text).slice(0, 300), '\n old', JSON.stringify([a, ia]).slice(0, 400), '\n new', JSON.stringify([b, ib]).slice(0, 400));
  return ok;
}
function files(dir: string, suf: string) { try { return readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith(suf)).map((f) => join(dir, f)); } catch { return []; } }
for (const f of files('notes', '.md')) cmp('notes/x/a.md', readFileSync(f, 'utf8'));
for (const f of files('cards', '.md')) cmp('cards/x.md', readFileSync(f, 'utf8'));
for (const f of files('/work/shared/seeds', '.txt')) { const t = readFileSync(f, 'utf8'); cmp('notes/x/a.md', t); cmp('cards/x.md', t); cmp('notes/x/b.md', t.replace(/\n/g, '\r\n')); }
console.log('files', n, 'bad', bad);
const fmLine = fc.constantFrom('a: 1', 'id: abcdefgh2345', 'id:', 'id: null', 'tags: [x, y]', 'tags:', '- v', '  - w', "title: 'T'", 'title: |', '  block', '# comment', '', '\t', 'key: [broken', 'k: !!js/function x', 'difficulty: 7', 'next_review: tomorrow', 'x: &a 1', 'y: *a', 'deck: d', 'lab: ttft', 'a: 1', '---x', ' ---', '...');
const bodyLine = fc.constantFrom('# Q', '## Answer', '## 面试标准答案', '## Details', '## Summary', 'text', '', '```', '```kb-calc', 'vars:', '  x: [1, 2]', 'answer: x * 2', '```python', '| a | b |', '|---|---|', '<!-- kb:id=abc -->', '<!-- kb: lab=x -->', 'lab: ttft', '- item', '> q', '## www.example.com', '---', '===', '    code');
const doc = fc.tuple(fc.constantFrom('---', '---js', '---yaml', '---coffee', '--- ', '----', ''), fc.array(fmLine, { maxLength: 6 }), fc.boolean(), fc.array(bodyLine, { maxLength: 24 }), fc.constantFrom('\n', '\r\n'), fc.boolean(), fc.constantFrom('notes/t/a.md', 'cards/d.md'));
fc.assert(fc.property(doc, ([open, fm, close, body, eol, bom, path]) => {
  const text = (bom ? '\uFEFF' : '') + (open ? [open, ...fm, ...(close ? ['---'] : [])].join(eol) + eol : '') + body.join(eol);
  if (body.some((l) => l.includes('www.'))) return true; // known, intended: bare URLs in headings
  return cmp(path, text);
}), { numRuns: 6000 });
console.log('generated ok, total', n, 'bad', bad);
