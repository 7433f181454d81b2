// kb add: a new note (notes/<topic>/<slug>.md) or a new card at the end of a deck
// (cards/<deck>.md), written the way kb's own files are, with its id already in place.
//
// Nothing is ever overwritten: a note's file must not exist yet, and a deck only grows by
// bytes appended after everything it held (its own line endings, BOM and all). Before
// anything is written, the new text is parsed back with kb's parser; text that would not read
// back as the card the user asked for (say, a `##` heading inside an answer, which would end
// it) is refused with the reason, so a file is never left half-understood.
import { lstatSync, mkdirSync, readdirSync, readFileSync, realpathSync, unlinkSync } from 'node:fs';
import { isAbsolute, join, relative } from 'node:path';
import { writeFileAtomic } from '../kb/atomic-write.ts';
import { DEFAULT_ID_KEY, formatMetaComment } from '../kb/card-meta.ts';
import { newCardId } from '../kb/card-identity.ts';
import { detectEol } from '../kb/frontmatter.ts';
import { formatValue } from '../kb/frontmatter-edit.ts';
import { normalFolder } from '../kb/note-folders.ts';
import { parseLocated, type LocatedParse } from '../kb/parse-file.ts';
import { slugify } from '../kb/slug.ts';
import type { Diagnostic, Difficulty, KbPath, ParsedCard } from '../model/knowledge-base.ts';
// The labs a card may link to are those `kb lab` can run.
import { labNames } from '../lab/lab-names.ts';
import { labRoots } from '../kb/location.ts';
import { unwalkedFolder } from '../kb/walk.ts';

/** A mistake in what was asked for (a bad name, an existing file, text that would not read back). */
export class AddError extends Error {
  /** The note's path when it was refused because that file exists already. */
  readonly existing: KbPath | null;
  constructor(message: string, existing: KbPath | null = null) {
    super(message);
    this.name = 'AddError';
    this.existing = existing;
  }
}

export const DEFAULT_TOPIC = 'inbox';

export interface NoteRequest {
  question: string;
  /** Markdown; '' leaves the answer section empty (to be written in an editor). */
  answer: string;
  topic: string;
  /** Empty: the topic is the one tag. */
  tags: string[];
  difficulty: Difficulty;
  lab: string | null;
  /** The study day (YYYY-MM-DD): created and next_review. */
  today: string;
}

export interface DeckCardRequest {
  question: string;
  answer: string;
  /** cards/<deck>.md */
  deck: string;
  lab: string | null;
}

export interface AddOptions {
  /** Whether an id is already used (in the database); such ids are drawn again. */
  idTaken?: (id: string) => boolean;
  /** A fixed id (tests). */
  id?: string;
  /** Where notes go: the first of kb.json's notesFolders (default notes; `.` puts <topic>/ at the top). */
  notesFolder?: string;
  /** The frontmatter key of a note's id: kb.json's idKey (default id). */
  idKey?: string;
}

/** What was written, enough to show it, open it at the answer, or take it back. */
export interface AddedCard {
  kind: 'note' | 'card';
  path: KbPath;
  abs: string;
  id: string;
  /** 1-based line of the card: a note's first line, a card's `##` heading. */
  line: number;
  /** 1-based line where the answer starts (where an editor should open). */
  answerLine: number;
  /** The deck's bytes before the card was appended; null for a file kb created. */
  before: Buffer | null;
  written: Buffer;
  /** The file's diagnostics after the write (warnings the user should see; never errors). */
  diagnostics: Diagnostic[];
  /** How the file is read back: the notes folder it was written under and kb.json's idKey. */
  readAs?: { notesFolders: string[]; idKey: string };
}

/** A question is one line of Markdown: inner line breaks and runs of spaces become one space. */
export function normalizeQuestion(question: string): string {
  return question.replace(/\s+/g, ' ').trim();
}

/** An answer as kb reads answers back: LF line endings, no blank lines around it, no trailing spaces. */
export function normalizeAnswer(answer: string): string {
  return answer.replace(/\r\n?/g, '\n').replace(/^(?:[ \t]*\n)+/, '').trimEnd();
}

/** `a, #b,a` -> [a, b]: a comma-separated list as kb reads tags (trimmed, no leading #, no repeats). */
export function splitTags(list: string): string[] {
  const tags: string[] = [];
  for (const raw of list.split(',')) {
    const tag = raw.replace(/^[\s#]+/, '').trimEnd();
    if (tag !== '' && !tags.includes(tag)) tags.push(tag);
  }
  return tags;
}

/** Refuses a lab the knowledge base does not have, listing those it has. */
export function checkLab(root: string, lab: string): void {
  const labs = labNames(labRoots(root));
  if (labs.includes(lab)) return;
  throw new AddError(labs.length === 0
    ? `unknown lab "${lab}": no labs found (no lab/*.md here, nor among kb's own)`
    : `unknown lab "${lab}"; labs: ${labs.join(', ')}`);
}

// Letters and digits of any script (a Chinese topic is a folder like any other), with the marks
// that some scripts' letters carry; nothing that a shell, git or another OS reads specially.
const SEGMENT = /^[\p{L}\p{N}][\p{L}\p{M}\p{N}._-]*$/u;

/** A topic or deck name as a relative folder path: `serving` or `llm/serving`, nothing that climbs out. */
export function checkName(name: string, what: 'topic' | 'deck'): string {
  // `cards/serving.md` and `notes/metrics` name the same deck and topic as `serving` and `metrics`.
  const folder = what === 'deck' ? 'cards/' : 'notes/';
  // NFC: a name typed on macOS (decomposed) and on Linux is one folder.
  let trimmed = name.normalize('NFC').trim().replace(/^\.\//, '');
  if (trimmed.startsWith(folder)) trimmed = trimmed.slice(folder.length);
  if (what === 'deck') trimmed = trimmed.replace(/\.md$/i, '');
  const segments = trimmed.split('/');
  if (trimmed === '' || segments.some((segment) => !SEGMENT.test(segment) || segment.includes('..'))) {
    throw new AddError(`${what} "${name}": use letters, digits, . _ - (and / between folders), starting with a letter or digit`);
  }
  return trimmed;
}

/** The text of a new note, in the format of kb's notes; answerLine is where the answer goes. */
export function noteText(request: NoteRequest, id: string, idKey = DEFAULT_ID_KEY): { text: string; answerLine: number } {
  const tags = request.tags.length > 0 ? request.tags : [request.topic];
  const lines = [
    '---',
    `created: ${formatValue(request.today, null)}`,
    'last_reviewed: null',
    `next_review: ${formatValue(request.today, null)}`,
    'review_count: 0',
    `difficulty: ${request.difficulty}`,
    'mastery_level: 0.0',
    'tags:',
    ...tags.map((tag) => `- ${formatValue(tag, null)}`),
    'related_outlines: []',
    ...(request.lab ? [`lab: ${formatValue(request.lab, null)}`] : []),
    `${idKey}: ${formatValue(id, null)}`,
    '---',
    `# ${normalizeQuestion(request.question)}`,
    '',
    '## Answer',
    '',
  ];
  const answerLine = lines.length + 1;
  const answer = normalizeAnswer(request.answer);
  // No answer yet: an empty line where it goes, so an editor opened at answerLine lands there.
  return { text: `${[...lines, ...(answer === '' ? [''] : answer.split('\n'))].join('\n')}\n`, answerLine };
}

/** A new deck's first lines: its name as its tag. */
export function deckHeader(deck: string, eol = '\n'): string {
  return `---${eol}tags: [${formatValue(deck, null)}]${eol}---${eol}`;
}

/**
 * The lines appended to a deck holding `existing`: a separating line break and blank line as
 * needed, the heading, the id comment, the card's `lab:` line, the answer (an empty line when
 * there is none yet). answerOffset counts lines from the heading to the answer.
 */
export function deckCardAppendix(existing: string, request: DeckCardRequest, id: string): { text: string; headingLine: number; answerOffset: number } {
  const eol = detectEol(existing);
  let separator = '';
  if (existing !== '' && !existing.endsWith('\n')) separator += eol;
  const head = existing + separator;
  if (head !== '' && !/(?:^|\n)[ \t]*\r?\n$/.test(head)) separator += eol;
  const answer = normalizeAnswer(request.answer);
  const block = [
    `## ${normalizeQuestion(request.question)}`,
    formatMetaComment(id),
    ...(request.lab ? [`lab: ${request.lab}`] : []),
  ];
  const answerOffset = block.length;
  const lines = [...block, ...(answer === '' ? [''] : answer.split('\n'))];
  const headingLine = countLines(existing + separator) + 1;
  return { text: separator + lines.join(eol) + eol, headingLine, answerOffset };
}

/** Line breaks in `text` (the 1-based line a text appended to it starts on, minus one). */
function countLines(text: string): number {
  let count = 0;
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) count++;
  return count;
}

function chooseId(options: AddOptions): string {
  if (options.id) return options.id;
  let id = newCardId();
  while (options.idTaken?.(id)) id = newCardId();
  return id;
}

/**
 * The topic as the folders already there spell it: each of its folders that exists under
 * another case (`Inbox/` for `inbox`, `GPU/` for `gpu`) is that folder. A vault's `Inbox/` got
 * a second, lowercase `inbox/` beside it on Linux (one folder on macOS and Windows anyway).
 * A folder spelled exactly as asked wins; two that differ only in case, neither exact, are
 * refused, naming both.
 */
export function existingTopic(root: string, notesFolder: string, topic: string): string {
  const spelled: string[] = [];
  let parent = notesFolder === '.' ? root : join(root, ...notesFolder.split('/'));
  let looking = true;
  for (const segment of topic.split('/')) {
    let name = segment;
    if (looking) {
      let folders: string[];
      try {
        folders = readdirSync(parent, { withFileTypes: true }).filter((entry) => entry.isDirectory() || entry.isSymbolicLink()).map((entry) => entry.name);
      } catch {
        folders = []; // the notes folder (or this one) is not there yet: it is made as asked
      }
      if (!folders.includes(segment)) {
        const key = segment.normalize('NFC').toLowerCase();
        const matches = folders.filter((folder) => folder.normalize('NFC').toLowerCase() === key);
        const where = (folder: string) => `${[...spelled, folder].join('/')}/`;
        if (matches.length > 1) throw new AddError(`topic "${topic}": ${matches.map(where).join(' and ')} differ only in case; name one exactly with --topic; nothing was written`);
        if (matches.length === 1) name = matches[0];
      }
      looking = folders.includes(name);
    }
    spelled.push(name);
    parent = join(parent, name);
  }
  return spelled.join('/');
}

/** Writes notes/<topic>/<slug>.md (slug from the question, else the id); refuses an existing file. */
export function addNote(root: string, request: NoteRequest, options: AddOptions = {}): AddedCard {
  const question = checkQuestion(request.question);
  const named = checkName(request.topic, 'topic');
  if (request.lab !== null) checkLab(root, request.lab);
  const id = chooseId(options);
  const notesFolder = normalFolder(options.notesFolder ?? 'notes');
  const topic = existingTopic(root, notesFolder, named);
  const folder = notesFolder === '.' ? topic : `${notesFolder}/${topic}`;
  const path = `${folder}/${slugify(question) || id}.md`;
  // A note in a folder the scan leaves out (an Obsidian vault's Templates/ or Daily/) was
  // written and never became a card, and Obsidian then offered it as a template.
  const unread = unwalkedFolder(root, folder);
  if (unread !== null) throw new AddError(`${path}: ${unread}; nothing was written (choose another --topic)`);
  const abs = join(root, ...path.split('/'));
  if (existsOrLink(abs)) throw new AddError(`${path} already exists; nothing was written (reword the question or use --topic)`, path);

  const idKey = options.idKey ?? DEFAULT_ID_KEY;
  const { text, answerLine } = noteText({ ...request, topic }, id, idKey);
  const parsed = parseLocated(path, text, [notesFolder], idKey);
  const card = expectOneCard(parsed, path, id);
  const diagnostics = checkReadBack(card, parsed.parsed.diagnostics, path, request, { lab: request.lab, tags: request.tags.length > 0 ? request.tags : [topic] });

  ensureFolder(root, folder);
  // Checked again right before the write: the window for another writer stays tiny.
  if (existsOrLink(abs)) throw new AddError(`${path} already exists; nothing was written`, path);
  const written = Buffer.from(text, 'utf8');
  writeFileAtomic(root, abs, written);
  return { kind: 'note', path, abs, id, line: 1, answerLine, before: null, written, diagnostics, readAs: { notesFolders: [notesFolder], idKey } };
}

/** Appends a card to cards/<deck>.md, creating the deck (tagged with its name) when missing. */
export function addDeckCard(root: string, request: DeckCardRequest, options: AddOptions = {}): AddedCard {
  checkQuestion(request.question);
  const deck = checkName(request.deck, 'deck');
  if (request.lab !== null) checkLab(root, request.lab);
  const path = `cards/${deck}.md`;
  const abs = join(root, ...path.split('/'));

  let before: Buffer | null = null;
  if (existsOrLink(abs)) {
    const stats = lstatSync(abs);
    if (!stats.isFile()) throw new AddError(`${path} is not a regular file; kb appends only to regular files inside the knowledge base`);
    before = readFileSync(abs);
  }
  const existing = before === null ? deckHeader(deck) : before.toString('utf8');
  const old = before === null ? null : parseLocated(path, existing);
  if (old?.parsed.skipped) {
    const first = old.parsed.diagnostics.find((d) => d.severity === 'error') ?? old.parsed.diagnostics[0];
    throw new AddError(`${path} cannot be read as it stands (${first ? `${first.line ? `line ${first.line}: ` : ''}${first.message}` : 'it has errors'}); fix it first (kb scan lists the problems)`);
  }
  const id = chooseUnusedId(options, old);
  const appendix = deckCardAppendix(existing, request, id);
  const text = existing + appendix.text;
  const parsed = parseLocated(path, text);
  checkOldCardsKept(old, parsed, path);
  const count = old?.parsed.cards.length ?? 0;
  const card = parsed.parsed.cards[count];
  if (parsed.parsed.cards.length === count) throw new AddError(`${path}: the question would read back as an empty heading (Markdown drops closing # marks); reword it; nothing was written`);
  if (card?.id !== id || card.line !== appendix.headingLine) throw new AddError(`${path}: the new card would not read back as a card of its own (does the deck end inside an open code block?); nothing was written`);
  if (parsed.parsed.cards.length > count + 1) throw new AddError(`${path}: the answer would be read as more than one card: a # or ## heading inside it starts another (use ### or deeper); nothing was written`);
  const fresh = parsed.parsed.diagnostics.filter((d) => d.line !== undefined && d.line >= appendix.headingLine);
  const diagnostics = checkReadBack(card, fresh, path, request, { lab: request.lab ?? card.lab, tags: card.tags });
  checkClosed(text, count, card, path);

  const written = before === null ? Buffer.from(text, 'utf8') : Buffer.concat([before, Buffer.from(appendix.text, 'utf8')]);
  if (before === null) {
    ensureFolder(root, path.slice(0, path.lastIndexOf('/')));
    if (existsOrLink(abs)) throw new AddError(`${path} appeared while kb was adding to it; nothing was written, run kb add again`);
    writeFileAtomic(root, abs, written);
  } else {
    writeFileAtomic(root, abs, written, before);
  }
  const answerLine = appendix.headingLine + appendix.answerOffset;
  return { kind: 'card', path, abs, id, line: appendix.headingLine, answerLine, before, written, diagnostics };
}

function chooseUnusedId(options: AddOptions, old: LocatedParse | null): string {
  const inFile = new Set(old?.parsed.cards.map((card) => card.id) ?? []);
  return chooseId({ ...options, idTaken: (id) => inFile.has(id) || (options.idTaken?.(id) ?? false) });
}

function checkQuestion(question: string): string {
  const normalized = normalizeQuestion(question);
  if (normalized === '') throw new AddError('the question is empty');
  return normalized;
}

function existsOrLink(abs: string): boolean {
  try {
    lstatSync(abs);
    return true;
  } catch {
    return false;
  }
}

function expectOneCard(parsed: LocatedParse, path: KbPath, id: string): ParsedCard {
  const errors = parsed.parsed.diagnostics.filter((d) => d.severity === 'error');
  const card = parsed.parsed.cards[0];
  if (errors.length > 0 || parsed.parsed.cards.length !== 1 || card.id !== id) {
    throw new AddError(`${path}: the new note would not read back (${errors[0]?.message ?? 'no card'}); nothing was written`);
  }
  return card;
}

/**
 * The card kb would read must be the one asked for: same question, same answer (a kb-calc
 * block is cut out of the back by design), same lab and tags. Returns its warnings.
 */
function checkReadBack(card: ParsedCard, diagnostics: Diagnostic[], path: KbPath, request: { question: string; answer: string }, expected: { lab: string | null; tags: string[] }): Diagnostic[] {
  const question = normalizeQuestion(request.question);
  const answer = normalizeAnswer(request.answer);
  const refuse = (why: string) => new AddError(`${path}: ${why}; nothing was written`);
  if (card.front !== question) {
    throw refuse(`the question would read back as ${JSON.stringify(card.front)} (Markdown drops a trailing " #"); reword it`);
  }
  if (card.calc === null && card.back !== answer) {
    throw refuse(`the answer would read back as ${JSON.stringify(abbreviate(card.back))}: a # or ## heading inside it (or text underlined with === or ---) ends the answer (use ### or deeper)${path.startsWith('cards/') ? ', and a first line "lab: …" or <!-- kb: … --> is read as the card\'s metadata' : ''}`);
  }
  if (card.lab !== expected.lab || JSON.stringify(card.tags) !== JSON.stringify(expected.tags)) {
    throw refuse(`the card would read back with lab ${card.lab ?? 'none'} and tags [${card.tags.join(', ')}]`);
  }
  const errors = diagnostics.filter((d) => d.severity === 'error');
  if (errors.length > 0) throw refuse(`${errors[0].line ? `line ${errors[0].line}: ` : ''}${errors[0].message}`);
  // An empty answer (to be written in the editor) is the one expected warning.
  return diagnostics.filter((d) => !(answer === '' && /no answer/.test(d.message)));
}

function abbreviate(text: string): string {
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/**
 * The deck must stay open to the next card: an answer that leaves a code fence (or an HTML
 * block) open would swallow every card appended after it. Tried with a heading appended.
 */
function checkClosed(text: string, count: number, card: ParsedCard, path: KbPath): void {
  const eol = detectEol(text);
  const next = parseLocated(path, `${text}${eol}## next${eol}`).parsed.cards;
  if (next.length !== count + 2 || next[count].contentHash !== card.contentHash) {
    throw new AddError(`${path}: the answer leaves a code block or HTML block open, which would swallow the cards after it; close it; nothing was written`);
  }
}

/** Appending must leave every card the deck had exactly as it was. */
function checkOldCardsKept(old: LocatedParse | null, now: LocatedParse, path: KbPath): void {
  if (old === null) return;
  const kept = old.parsed.cards.every((card, i) => now.parsed.cards[i]?.id === card.id && now.parsed.cards[i].contentHash === card.contentHash);
  if (!kept) throw new AddError(`${path}: appending would change the cards already there (does the deck end inside an open code block?); nothing was written`);
}

/** Creates `relDir` under root, one folder at a time, never through a link that leads outside. */
function ensureFolder(root: string, relDir: string): void {
  const rootReal = realpathSync(root);
  let current = root;
  for (const segment of relDir.split('/')) {
    current = join(current, segment);
    if (!existsOrLink(current)) mkdirSync(current);
    const real = realpathSync(current);
    const rel = relative(rootReal, real);
    if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) throw new AddError(`${relative(root, current)} leads outside the knowledge base; kb writes only inside it`);
    if (!lstatSync(real).isDirectory()) throw new AddError(`${relative(root, current)} is not a folder`);
  }
}

/** The card as its file reads now (after an editor): found by its id; a note's only card whatever its id. */
export function readAddedCard(added: AddedCard): ParsedCard | null {
  let text: string;
  try {
    text = readFileSync(added.abs, 'utf8');
  } catch {
    return null;
  }
  const cards = parseLocated(added.path, text, added.readAs?.notesFolders, added.readAs?.idKey).parsed.cards;
  return cards.find((card) => card.id === added.id) ?? (added.kind === 'note' && cards.length === 1 ? cards[0] : null);
}

/**
 * Takes back what addNote / addDeckCard wrote (an answer left empty in the editor): the note's
 * file is removed; a deck gets back its exact old bytes when only the appended part changed,
 * else only the new card's lines go (the user edited other cards meanwhile: those edits stay).
 * Returns false when the card is no longer to be found (then the file is left alone).
 */
export function withdrawAdded(root: string, added: AddedCard): boolean {
  if (added.kind === 'note') {
    if (!existsOrLink(added.abs) || lstatSync(added.abs).isSymbolicLink()) return false;
    unlinkSync(added.abs);
    return true;
  }
  let current: Buffer;
  try {
    current = readFileSync(added.abs);
  } catch {
    return false;
  }
  if (added.before !== null && current.subarray(0, added.before.length).equals(added.before)) {
    writeFileAtomic(root, added.abs, added.before, current);
    return true;
  }
  if (added.before === null && current.equals(added.written)) {
    unlinkSync(added.abs);
    return true;
  }
  const text = current.toString('utf8');
  const cards = parseLocated(added.path, text).parsed.cards;
  const index = cards.findIndex((card) => card.id === added.id);
  if (index === -1) return false;
  const lines = text.split('\n');
  const from = cards[index].line - 1;
  const to = index + 1 < cards.length ? cards[index + 1].line - 1 : lines.length;
  const kept = [...lines.slice(0, from), ...lines.slice(to)].join('\n');
  // The card was the last one: drop the blank lines that separated it, keep one line ending.
  const eol = detectEol(text);
  const next = to === lines.length ? kept.replace(/(?:\r?\n)+$/, '') + eol : kept;
  writeFileAtomic(root, added.abs, Buffer.from(next, 'utf8'), current);
  return true;
}
