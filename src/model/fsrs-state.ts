// A card's memory state, in the one shape kb computes with (FsrsState: real-clock epoch
// milliseconds, camelCase) and the one shape it stores (FsrsColumns: the `fsrs` row, which
// review_log and card_actions also keep as JSON), with the converters between them; and the
// names of FSRS states and answers.

/** FSRS learning state, as ts-fsrs numbers it. */
export type FsrsStateCode = 0 | 1 | 2 | 3;

export interface FsrsState {
  due: number;
  stability: number;
  difficulty: number;
  elapsedDays: number;
  scheduledDays: number;
  learningSteps: number;
  reps: number;
  lapses: number;
  state: FsrsStateCode;
  lastReview: number | null;
}

/** An fsrs row as stored, column for column (snake_case, as ts-fsrs also spells the fields). */
export interface FsrsColumns {
  due: number;
  stability: number;
  difficulty: number;
  elapsed_days: number;
  scheduled_days: number;
  learning_steps: number;
  reps: number;
  lapses: number;
  state: FsrsStateCode;
  last_review: number | null;
  suspended: 0 | 1;
  buried_until: number | null;
  /** 1 for a leech (migration 3); absent from log rows written before it. */
  leech?: 0 | 1;
}

/** The memory-state columns alone (what ts-fsrs reads and writes). */
export type FsrsFields = Omit<FsrsColumns, 'suspended' | 'buried_until' | 'leech'>;

export function stateFromColumns(row: FsrsFields): FsrsState {
  return {
    due: row.due,
    stability: row.stability,
    difficulty: row.difficulty,
    elapsedDays: row.elapsed_days,
    scheduledDays: row.scheduled_days,
    learningSteps: row.learning_steps,
    reps: row.reps,
    lapses: row.lapses,
    state: row.state,
    lastReview: row.last_review,
  };
}

export function columnsFromState(state: FsrsState, flags: { suspended: boolean; buriedUntil: number | null }): FsrsColumns {
  return {
    due: state.due,
    stability: state.stability,
    difficulty: state.difficulty,
    elapsed_days: state.elapsedDays,
    scheduled_days: state.scheduledDays,
    learning_steps: state.learningSteps,
    reps: state.reps,
    lapses: state.lapses,
    state: state.state,
    last_review: state.lastReview,
    suspended: flags.suspended ? 1 : 0,
    buried_until: flags.buriedUntil,
  };
}

const finite = (value: unknown): boolean => typeof value === 'number' && Number.isFinite(value);

/**
 * JSON.stringify(row) for a row whose own keys are FsrsColumns' in their order (due ...
 * buried_until, then leech), as rateRow builds it: the same text, written field by field (a
 * replay writes one per rating into review_log, 100,000 on a clone's first open). A number is
 * written as String() writes it, as JSON.stringify does; anything else goes to JSON.stringify.
 */
export function columnsJson(row: FsrsColumns): string {
  const { due, stability, difficulty, elapsed_days, scheduled_days, learning_steps, reps, lapses, state, last_review, suspended, buried_until, leech } = row;
  const plain =
    finite(due) && finite(stability) && finite(difficulty) && finite(elapsed_days) && finite(scheduled_days) && finite(learning_steps) && finite(reps) &&
    finite(lapses) && finite(state) && (last_review === null || finite(last_review)) && finite(suspended) && (buried_until === null || finite(buried_until)) && finite(leech);
  if (!plain) return JSON.stringify(row);
  return `{"due":${due},"stability":${stability},"difficulty":${difficulty},"elapsed_days":${elapsed_days},"scheduled_days":${scheduled_days},"learning_steps":${learning_steps},"reps":${reps},"lapses":${lapses},"state":${state},"last_review":${last_review},"suspended":${suspended},"buried_until":${buried_until},"leech":${leech}}`;
}

export function sameFsrsState(a: FsrsState, b: FsrsState): boolean {
  return (
    a.due === b.due &&
    a.stability === b.stability &&
    a.difficulty === b.difficulty &&
    a.elapsedDays === b.elapsedDays &&
    a.scheduledDays === b.scheduledDays &&
    a.learningSteps === b.learningSteps &&
    a.reps === b.reps &&
    a.lapses === b.lapses &&
    a.state === b.state &&
    a.lastReview === b.lastReview
  );
}

/** ts-fsrs's State: 0 new, 1 learning, 2 review, 3 relearning. */
export type CardState = FsrsStateCode;
export const NEW: CardState = 0;
export const LEARNING: CardState = 1;
export const REVIEW: CardState = 2;
export const RELEARNING: CardState = 3;

export const STATE_NAMES = ['new', 'learning', 'review', 'relearning'] as const;

/** Again, Hard, Good, Easy: the four answers, numbered as ts-fsrs and Anki number them. */
export type Grade = 1 | 2 | 3 | 4;
export const GRADES: readonly Grade[] = [1, 2, 3, 4];
export const GRADE_NAMES = { 1: 'again', 2: 'hard', 3: 'good', 4: 'easy' } as const;
export type GradeName = (typeof GRADE_NAMES)[Grade];
/**
 * An answer named in a sentence, as kb review's answer bar names it: "undid Again" (the name
 * in lower case, "undid again", read as "undid once more").
 */
export const GRADE_LABELS = { 1: 'Again', 2: 'Hard', 3: 'Good', 4: 'Easy' } as const;

export function parseGrade(name: string): Grade | null {
  const lower = name.toLowerCase();
  for (const grade of GRADES) {
    if (GRADE_NAMES[grade] === lower || String(grade) === lower) return grade;
  }
  return null;
}
