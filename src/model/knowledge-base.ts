// The knowledge base as parsed from disk: plain data shared by scan, store, review and quiz.

/** A path relative to the knowledge-base root, with forward slashes (notes/metrics/ttft.md). */
export type KbPath = string;

export type Difficulty = 'easy' | 'medium' | 'hard';

export interface Diagnostic {
  severity: 'error' | 'warning';
  file: KbPath;
  /** 1-based line in the file, when the problem has one. */
  line?: number;
  message: string;
}

/** A variable of a kb-calc block: a range with a step, a list to choose from, or a formula. */
export type CalcVar =
  | { name: string; kind: 'range'; min: number; max: number; step: number }
  | { name: string; kind: 'choose'; values: number[] }
  | { name: string; kind: 'expr'; expr: string }
  /**
   * The learner's own figure: `metric` (a lab metric, `name@point` for a sweep point) of their
   * latest run of `lab`, else `fallback`. `figure` is filled in just before a card is asked.
   */
  | { name: string; kind: 'lab'; lab: string; metric: string; fallback: number; figure?: LabFigure };

/** Where a lab-sourced variable's value came from, resolved from the learner's stored runs. */
export interface LabFigure {
  /** The figure of the latest run, or null when there is none (the fallback is used). */
  value: number | null;
  /** "your last batch-size-sweep, 2 days ago" or how to get one. */
  source: string;
  /** Set when that run did not reproduce the lab's expectations: said on the card's back. */
  notReproduced: string | null;
}

export interface CalcSpec {
  /** In declaration order: a formula may only use variables declared before it. */
  vars: CalcVar[];
  answer: string;
  unit: string | null;
  /** `abs`: the typed number may differ by `value`; `rel`: by `value` x |answer| (1% -> 0.01). */
  tolerance: { kind: 'abs' | 'rel'; value: number };
  explain: string | null;
  /** Line of the ```kb-calc fence in the file. */
  line: number;
}

/** What a note's frontmatter says about its review history; seeds its FSRS card on import. */
export interface NoteSeed {
  created: string | null;
  lastReviewed: string | null;
  nextReview: string | null;
  reviewCount: number | null;
  difficulty: Difficulty | null;
  masteryLevel: number | null;
}

export interface ParsedCard {
  /** The id stored in the file, or null when kb scan has yet to write one. */
  id: string | null;
  kind: 'note' | 'card';
  file: KbPath;
  /** 1-based line where the card starts: a note's first line, a card's `##` heading. */
  line: number;
  /**
   * 1-based line of the id in the file (a card's kb:id comment, a note's `id:` key), absent
   * without one: where the user edits a duplicate id, so where kb says it is.
   */
  idLine?: number;
  /** Markdown of the question (a note's H1 text or file name; a card's heading text). */
  front: string;
  /** Markdown of the answer shown on reveal. */
  back: string;
  /** Markdown of the whole note body (for a card: its body under the heading). */
  full: string;
  tags: string[];
  /** notes/<topic>/x.md -> <topic>; cards/<deck>.md -> <deck>. */
  deck: string;
  lab: string | null;
  calc: CalcSpec | null;
  /** Only for notes. */
  seed: NoteSeed | null;
  /** sha256 of front + back + full + tags + lab + calc, to detect edits. */
  contentHash: string;
}

export interface ParsedFile {
  file: KbPath;
  cards: ParsedCard[];
  diagnostics: Diagnostic[];
  /**
   * True when an error (malformed or executable frontmatter, duplicate ids) kept the file's
   * cards from being read at all: the store should keep the cards it knew from this file
   * rather than treat them as removed.
   */
  skipped?: boolean;
  /**
   * A skipped file's cards as far as they were read, never stored: what a scan says of them
   * beside the error (a link to a missing lab), so a learner sees every problem at once.
   */
  cardsAsRead?: ParsedCard[];
}

/** A file as it stands on disk: what kb scan records of it, and what write-back expects to find. */
export interface FileStamp {
  size: number;
  mtimeMs: number;
  sha256: string;
}
