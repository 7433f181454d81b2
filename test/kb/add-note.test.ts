import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  AddError, addDeckCard, addNote, deckHeader, normalizeAnswer, normalizeQuestion, noteText, readAddedCard, splitTags, withdrawAdded,
  type NoteRequest,
} from '../../src/app/add-note.ts';
import { newCardId } from '../../src/kb/card-identity.ts';
import { parseKnowledgeFile } from '../../src/kb/parse-file.ts';
import { SLUG_MAX_WIDTH, slugify } from '../../src/kb/slug.ts';
import stringWidth from 'string-width';
import { withBundledLabs } from '../helpers/kb-cli.ts';

/** A knowledge base with two labs and whatever files are given. */
function knowledgeBase(files: Record<string, string | Buffer> = {}): string {
  const root = mkdtempSync(join(tmpdir(), 'kb-add-'));
  for (const folder of ['notes', 'cards', 'lab']) mkdirSync(join(root, folder));
  writeFileSync(join(root, 'lab/paged-kv.md'), '---\nmodel: gpt2-tiny\n---\n# Paged KV\n');
  writeFileSync(join(root, 'lab/batching.md'), '---\nmodel: gpt2-tiny\n---\n# Batching\n');
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  return root;
}

const note = (over: Partial<NoteRequest> = {}): NoteRequest => ({
  question: 'What does TTFT measure?',
  answer: 'The time from submitting a request to its first output token.',
  topic: 'metrics',
  tags: [],
  difficulty: 'medium',
  lab: null,
  today: '2026-11-22',
  ...over,
});

const DECK = `---
tags: [serving]
---

## What is speculative decoding?
<!-- kb:id=aaaabbbbcccc -->
A draft proposes tokens, the target verifies them in one pass.
`;

describe('noteText', () => {
  it('parses with kb\'s own parser, without a warning, into one card with the id, tags, difficulty and lab', () => {
    const { text, answerLine } = noteText(note({ tags: ['metrics', 'ttft'], difficulty: 'hard', lab: 'paged-kv' }), 'abcdefghijkm');
    const parsed = parseKnowledgeFile('notes/metrics/what-does-ttft-measure.md', text);
    expect(parsed.diagnostics).toEqual([]);
    expect(parsed.cards).toHaveLength(1);
    const [card] = parsed.cards;
    expect(card).toMatchObject({
      id: 'abcdefghijkm',
      kind: 'note',
      front: 'What does TTFT measure?',
      back: 'The time from submitting a request to its first output token.',
      tags: ['metrics', 'ttft'],
      deck: 'metrics',
      lab: 'paged-kv',
    });
    expect(card.seed).toEqual({ created: '2026-11-22', lastReviewed: null, nextReview: '2026-11-22', reviewCount: 0, difficulty: 'hard', masteryLevel: 0 });
    expect(text.split('\n')[answerLine - 1]).toBe('The time from submitting a request to its first output token.');
  });

  it('writes the frontmatter keys in the order of kb\'s notes, the topic as the default tag', () => {
    const { text } = noteText(note(), 'abcdefghijkm');
    expect(text).toBe(`---
created: '2026-11-22'
last_reviewed: null
next_review: '2026-11-22'
review_count: 0
difficulty: medium
mastery_level: 0.0
tags:
- metrics
related_outlines: []
id: abcdefghijkm
---
# What does TTFT measure?

## Answer

The time from submitting a request to its first output token.
`);
  });

  it('leaves an empty line at the answer for an editor when there is no answer yet', () => {
    const { text, answerLine } = noteText(note({ answer: '' }), 'abcdefghijkm');
    const lines = text.split('\n');
    expect(lines[answerLine - 2]).toBe('');
    expect(lines[answerLine - 1]).toBe('');
    expect(lines).toHaveLength(answerLine + 1);
    expect(parseKnowledgeFile('notes/a/b.md', text).cards[0].back).toBe('');
  });
});

describe('slugify', () => {
  it('keeps lowercase letters and digits, one - for every other run, Latin accents dropped', () => {
    expect(slugify('What is TTFT (time to first token)?')).toBe('what-is-ttft-time-to-first-token');
    expect(slugify('  p95 < 700 ms -- why?  ')).toBe('p95-700-ms-why');
    expect(slugify('Qu’est-ce que la mémoire « paginée » ?')).toBe('qu-est-ce-que-la-memoire-paginee');
  });

  it('keeps the letters of any script, as a vault of Chinese notes names its files', () => {
    expect(slugify('什么是首字延迟？')).toBe('什么是首字延迟');
    expect(slugify('什么是 TTFT（Time to First Token）和吞吐量？')).toBe('什么是-ttft-time-to-first-token-和吞吐量');
    expect(slugify('ＫＶキャッシュとは？')).toBe('kvキャッシュとは');
    expect(slugify('페이지드 어텐션이란?')).toBe('페이지드-어텐션이란');
    expect(slugify('?!')).toBe('');
  });

  it('cuts a long slug at a word boundary, or between whole characters within 60 columns', () => {
    const slug = slugify('Why does continuous batching raise throughput without hurting time to first token much at all?');
    expect(slug).toBe('why-does-continuous-batching-raise-throughput-without');
    expect(slugify('a'.repeat(80))).toBe('a'.repeat(SLUG_MAX_WIDTH));
    // Two columns a character: 30 of them.
    expect(slugify('为什么连续批处理能在几乎不影响首字延迟的情况下提高吞吐量并且降低每个请求的平均成本？')).toBe('为什么连续批处理能在几乎不影响首字延迟的情况下提高吞吐量并且');
  });

  it('always gives words of letters and digits joined by single dashes, lowercase NFC, at most 60 columns, whole words of the full slug', () => {
    fc.assert(fc.property(fc.string({ unit: 'grapheme', maxLength: 200 }), (text) => {
      const slug = slugify(text);
      expect(slug).toMatch(/^(?:[\p{L}\p{N}][\p{L}\p{M}\p{N}]*(?:-[\p{L}\p{N}][\p{L}\p{M}\p{N}]*)*)?$/u);
      expect(slug).toBe(slug.normalize('NFC'));
      expect(slug).toBe(slug.toLowerCase());
      expect(stringWidth(slug)).toBeLessThanOrEqual(SLUG_MAX_WIDTH);
      const full = slugify(text, Infinity);
      expect(full.startsWith(slug)).toBe(true);
      const firstWord = full.split('-')[0];
      if (slug.length < full.length && stringWidth(firstWord) <= SLUG_MAX_WIDTH) expect(full.charAt(slug.length)).toBe('-');
    }));
  });
});

describe('splitTags', () => {
  it('trims, drops a leading # and repeats', () => {
    expect(splitTags(' metrics, #ttft,metrics,, ## kv ')).toEqual(['metrics', 'ttft', 'kv']);
  });
});

describe('addNote', () => {
  it('writes notes/<topic>/<slug>.md and reads it back', () => {
    const root = knowledgeBase();
    const added = addNote(root, note({ lab: 'batching' }), { id: 'abcdefghijkm' });
    expect(added).toMatchObject({ kind: 'note', path: 'notes/metrics/what-does-ttft-measure.md', id: 'abcdefghijkm', line: 1, before: null });
    expect(readFileSync(added.abs)).toEqual(added.written);
    expect(readAddedCard(added)).toMatchObject({ id: 'abcdefghijkm', lab: 'batching', tags: ['metrics'] });
  });

  it('names a Chinese question\'s file by its question, in the topic folder it is given', () => {
    const root = knowledgeBase();
    const added = addNote(root, note({ question: '什么是首字延迟？', answer: '从提交请求到第一个输出 token 的时间。', topic: '指标' }), { id: 'zhcnquestion' });
    expect(added.path).toBe('notes/指标/什么是首字延迟.md');
    expect(readAddedCard(added)?.front).toBe('什么是首字延迟？');
  });

  it('names the file by its id when the question has no letter or digit', () => {
    const root = knowledgeBase();
    const added = addNote(root, note({ question: '→ ?', answer: 'an arrow', topic: 'inbox' }), { id: 'arrowquestio' });
    expect(added.path).toBe('notes/inbox/arrowquestio.md');
  });

  it('refuses a file that exists, naming it, and overwrites nothing', () => {
    const root = knowledgeBase({ 'notes/metrics/what-does-ttft-measure.md': 'mine\n' });
    expect(() => addNote(root, note())).toThrow(/notes\/metrics\/what-does-ttft-measure\.md already exists/);
    expect(readFileSync(join(root, 'notes/metrics/what-does-ttft-measure.md'), 'utf8')).toBe('mine\n');
  });

  it('refuses an unknown lab, listing the knowledge base\'s labs and kb\'s own', () => {
    const root = knowledgeBase();
    expect(() => addNote(root, note({ lab: 'nope' }))).toThrow(`unknown lab "nope"; labs: ${withBundledLabs(['batching', 'paged-kv']).join(', ')}`);
    expect(readdirSync(join(root, 'notes'))).toEqual([]);
  });

  it('refuses topics that leave notes/ and empty questions', () => {
    const root = knowledgeBase();
    for (const topic of ['../x', 'a/../../b', '/abs', '', '.hidden']) expect(() => addNote(root, note({ topic }))).toThrow(AddError);
    expect(() => addNote(root, note({ question: ' \n\t ' }))).toThrow('the question is empty');
    expect(readdirSync(join(root, 'notes'))).toEqual([]);
  });

  it("refuses a topic the scan never reads (an Obsidian vault's Templates/ or Daily/, node_modules): the note was written and never became a card", () => {
    const root = knowledgeBase({ '.obsidian/templates.json': '{"folder": "Templates"}', '.obsidian/daily-notes.json': '{"folder": "Journal/Daily"}' });
    const topics = ['Templates', 'Templates/sub', 'Journal/Daily', 'node_modules', 'a/node_modules'];
    for (const topic of topics) {
      expect(() => addNote(root, note({ topic }), { notesFolder: '.' })).toThrow(/kb never reads .*; nothing was written \(choose another --topic\)/);
    }
    expect(() => addNote(root, note({ topic: 'Templates' }), { notesFolder: '.' })).toThrow(
      "Templates/what-does-ttft-measure.md: kb never reads Templates/ (the vault's templates or daily notes folder, as its Obsidian settings name it); nothing was written (choose another --topic)",
    );
    for (const folder of ['Templates', 'Journal', 'node_modules', 'a']) expect(existsSync(join(root, folder))).toBe(false);
    // A folder that only starts like one is a topic like any other.
    expect(addNote(root, note({ topic: 'Templates2' }), { notesFolder: '.' }).path).toBe('Templates2/what-does-ttft-measure.md');
  });

  it('never writes through a topic folder that links outside the knowledge base', () => {
    const outside = mkdtempSync(join(tmpdir(), 'kb-outside-'));
    const root = knowledgeBase();
    symlinkSync(outside, join(root, 'notes/linked'));
    expect(() => addNote(root, note({ topic: 'linked/deeper' }))).toThrow(/outside the knowledge base/);
    expect(readdirSync(outside)).toEqual([]);
  });

  it('refuses an answer whose ## heading would end the answer section, writing nothing', () => {
    const root = knowledgeBase();
    expect(() => addNote(root, note({ answer: 'Short.\n\n## Details\n\nLong.' }))).toThrow(/a # or ## heading inside it .* ends the answer/);
    expect(existsSync(join(root, 'notes/metrics'))).toBe(false);
    expect(addNote(root, note({ answer: 'Short.\n\n### Details\n\nLong.' })).path).toBe('notes/metrics/what-does-ttft-measure.md');
  });

  it('draws another id while the database has the one drawn', () => {
    const root = knowledgeBase();
    const seen: string[] = [];
    const added = addNote(root, note({ question: 'Q?' }), { idTaken: (id) => (seen.push(id), seen.length < 3) });
    expect(added.id).toBe(seen[2]);
  });

  it('withdraws a note by removing its file', () => {
    const root = knowledgeBase();
    const added = addNote(root, note({ answer: '' }));
    expect(withdrawAdded(root, added)).toBe(true);
    expect(existsSync(added.abs)).toBe(false);
  });
});

describe('addDeckCard', () => {
  it('creates a missing deck tagged with its name', () => {
    const root = knowledgeBase();
    const added = addDeckCard(root, { question: 'Why is decode memory-bound?', answer: 'Every step reads all the weights\nfor one token per sequence.', deck: 'prefill-decode', lab: null }, { id: 'decodecardid' });
    const text = readFileSync(added.abs, 'utf8');
    expect(text).toBe(`${deckHeader('prefill-decode')}\n## Why is decode memory-bound?\n<!-- kb:id=decodecardid -->\nEvery step reads all the weights\nfor one token per sequence.\n`);
    const parsed = parseKnowledgeFile('cards/prefill-decode.md', text);
    expect(parsed.diagnostics).toEqual([]);
    expect(parsed.cards).toEqual([expect.objectContaining({ id: 'decodecardid', kind: 'card', line: added.line, tags: ['prefill-decode'], deck: 'prefill-decode', lab: null })]);
  });

  it('appends to an existing deck: every byte already there stays, the card reads back with its lab', () => {
    const root = knowledgeBase({ 'cards/serving.md': DECK });
    const added = addDeckCard(root, { question: 'What is disaggregated serving?', answer: 'Prefill and decode on separate pools.', deck: 'serving', lab: 'batching' }, { id: 'newcardid234' });
    const bytes = readFileSync(added.abs);
    expect(bytes.subarray(0, Buffer.byteLength(DECK)).toString('utf8')).toBe(DECK);
    expect(bytes.subarray(Buffer.byteLength(DECK)).toString('utf8')).toBe('\n## What is disaggregated serving?\n<!-- kb:id=newcardid234 -->\nlab: batching\nPrefill and decode on separate pools.\n');
    const cards = parseKnowledgeFile('cards/serving.md', bytes.toString('utf8')).cards;
    expect(cards.map((card) => [card.id, card.line, card.lab, card.tags])).toEqual([
      ['aaaabbbbcccc', 5, null, ['serving']],
      ['newcardid234', added.line, 'batching', ['serving']],
    ]);
    expect(bytes.toString('utf8').split('\n')[added.answerLine - 1]).toBe('Prefill and decode on separate pools.');
  });

  it('keeps a CRLF deck with a BOM and no final line break byte-exact, appending in CRLF', () => {
    const before = Buffer.from(`\uFEFF${DECK.trimEnd().replace(/\n/g, '\r\n')}`, 'utf8');
    const root = knowledgeBase({ 'cards/serving.md': before });
    const added = addDeckCard(root, { question: 'Q two?', answer: 'line one\nline two', deck: 'serving', lab: null }, { id: 'crlfcardid23' });
    const bytes = readFileSync(added.abs);
    expect(bytes.subarray(0, before.length).equals(before)).toBe(true);
    expect(bytes.subarray(before.length).toString('utf8')).toBe('\r\n\r\n## Q two?\r\n<!-- kb:id=crlfcardid23 -->\r\nline one\r\nline two\r\n');
    expect(parseKnowledgeFile('cards/serving.md', bytes.toString('utf8')).cards.map((card) => card.back)).toEqual([
      'A draft proposes tokens, the target verifies them in one pass.',
      'line one\nline two',
    ]);
  });

  it('refuses a deck that ends inside an open code block, and one that cannot be read, leaving them as they were', () => {
    const open = `${DECK}\n## Show it\n<!-- kb:id=openfenceid2 -->\n\`\`\`python\nprint(1)\n`;
    const broken = '---\ntags: [a\n---\n## Q\nA\n';
    const root = knowledgeBase({ 'cards/open.md': open, 'cards/broken.md': broken });
    expect(() => addDeckCard(root, { question: 'Q?', answer: 'A.', deck: 'open', lab: null })).toThrow(/open code block/);
    expect(() => addDeckCard(root, { question: 'Q?', answer: 'A.', deck: 'broken', lab: null })).toThrow(/cards\/broken\.md cannot be read as it stands/);
    expect(readFileSync(join(root, 'cards/open.md'), 'utf8')).toBe(open);
    expect(readFileSync(join(root, 'cards/broken.md'), 'utf8')).toBe(broken);
  });

  it('refuses an answer that would be read as the card\'s metadata or a new card', () => {
    const root = knowledgeBase({ 'cards/serving.md': DECK });
    expect(() => addDeckCard(root, { question: 'Q?', answer: 'lab: batching', deck: 'serving', lab: null })).toThrow(/read back/);
    expect(() => addDeckCard(root, { question: 'Q?', answer: 'A.\n\n## Q2?\nB.', deck: 'serving', lab: null })).toThrow(/more than one card/);
    expect(readFileSync(join(root, 'cards/serving.md'), 'utf8')).toBe(DECK);
  });

  it('withdraws a card: the old bytes come back exactly, or only its lines go when other cards were edited meanwhile', () => {
    const root = knowledgeBase({ 'cards/serving.md': DECK });
    const first = addDeckCard(root, { question: 'Q?', answer: '', deck: 'serving', lab: null });
    expect(withdrawAdded(root, first)).toBe(true);
    expect(readFileSync(join(root, 'cards/serving.md'), 'utf8')).toBe(DECK);

    const second = addDeckCard(root, { question: 'Q?', answer: '', deck: 'serving', lab: null });
    const edited = readFileSync(second.abs, 'utf8').replace('in one pass', 'in a single pass');
    writeFileSync(second.abs, edited);
    expect(withdrawAdded(root, second)).toBe(true);
    expect(readFileSync(join(root, 'cards/serving.md'), 'utf8')).toBe(DECK.replace('in one pass', 'in a single pass'));

    const created = addDeckCard(root, { question: 'Q?', answer: '', deck: 'fresh', lab: null });
    expect(withdrawAdded(root, created)).toBe(true);
    expect(existsSync(created.abs)).toBe(false);
  });
});

/** Text that is mostly Markdown's block markers, line breaks and a little of everything else. */
const markdownish = fc.array(fc.oneof(
  fc.constantFrom('#', '## ', '### ', '\n', '\r\n', '\n\n', '-', '---', '===', '```', '~~~', '`', '<!-- kb:id=x -->', 'lab: batching', ' ', '    ', '\t', '*', '>', '|', '1.', 'Answer', '答案'),
  fc.string({ unit: 'grapheme', maxLength: 12 }),
), { maxLength: 14 }).map((parts) => parts.join(''));

/** Plain prose: words and punctuation on lines that start with a word. */
const prose = fc.array(fc.array(fc.oneof(fc.stringMatching(/^[A-Za-z0-9]{1,10}$/), fc.constantFrom('首字延迟', 'KV', 'p95', '?', ',', '(TTFT)')), { minLength: 1, maxLength: 8 }).map((words) => words.join(' ')), { minLength: 1, maxLength: 4 })
  .map((lines) => lines.join('\n'));

describe('what kb add writes reads back', () => {
  it('as a note: either the card asked for (question and answer as written) or a refusal that writes nothing', () => {
    const root = knowledgeBase();
    let runs = 0;
    fc.assert(fc.property(markdownish, markdownish, fc.string({ maxLength: 20 }), (question, answer, tags) => {
      const topic = `t${runs++}`;
      const id = newCardId();
      let added;
      try {
        added = addNote(root, note({ question, answer, topic, tags: splitTags(tags) }), { id });
      } catch (error) {
        expect(error).toBeInstanceOf(AddError);
        expect(existsSync(join(root, 'notes', topic))).toBe(false);
        return;
      }
      const parsed = parseKnowledgeFile(added.path, readFileSync(added.abs, 'utf8'));
      expect(parsed.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
      expect(parsed.cards).toHaveLength(1);
      const [card] = parsed.cards;
      expect(card.id).toBe(id);
      expect(card.front).toBe(normalizeQuestion(question));
      if (card.calc === null) expect(card.back).toBe(normalizeAnswer(answer));
      expect(card.tags).toEqual(splitTags(tags).length > 0 ? splitTags(tags) : [topic]);
    }), { numRuns: 150 });
  });

  it('as a note or a deck card, plain prose is never refused and round-trips exactly', () => {
    const root = knowledgeBase({ 'cards/prose.md': DECK.replace(/\n/g, '\r\n') });
    let runs = 0;
    fc.assert(fc.property(prose, prose, (question, answer) => {
      const id = newCardId();
      const added = runs++ % 2 === 0
        ? addNote(root, note({ question, answer, topic: `p${runs}` }), { id })
        : addDeckCard(root, { question, answer, deck: 'prose', lab: null }, { id });
      const card = readAddedCard(added);
      expect(card).toMatchObject({ id, front: normalizeQuestion(question), back: normalizeAnswer(answer) });
      expect(added.diagnostics).toEqual([]);
    }), { numRuns: 80 });
  });

  it('as a deck card: the cards already there are unchanged and the new one is the question and answer given', () => {
    let runs = 0;
    fc.assert(fc.property(markdownish, markdownish, fc.boolean(), (question, answer, crlf) => {
      const before = Buffer.from(crlf ? DECK.replace(/\n/g, '\r\n') : DECK);
      const root = knowledgeBase({ 'cards/d.md': before });
      const id = `prop${String(runs++).padStart(8, '0')}`;
      let added;
      try {
        added = addDeckCard(root, { question, answer, deck: 'd', lab: null }, { id });
      } catch (error) {
        expect(error).toBeInstanceOf(AddError);
        expect(readFileSync(join(root, 'cards/d.md')).equals(before)).toBe(true);
        return;
      }
      const bytes = readFileSync(added.abs);
      expect(bytes.subarray(0, before.length).equals(before)).toBe(true);
      const parsed = parseKnowledgeFile('cards/d.md', bytes.toString('utf8'));
      expect(parsed.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
      expect(parsed.cards.map((card) => card.id)).toEqual(['aaaabbbbcccc', id]);
      expect(parsed.cards[1].front).toBe(normalizeQuestion(question));
      if (parsed.cards[1].calc === null) expect(parsed.cards[1].back).toBe(normalizeAnswer(answer));
    }), { numRuns: 100 });
  });
});
