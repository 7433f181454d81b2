// One line of a device's review log (reviews/<device>.jsonl): what happened to a card, when,
// on which device. The log is the truth that the database caches; a line is never edited,
// so two devices' logs merge as a union of events by id.
// zod/mini, as kb.json's schema: every command reads the log on open, and the classic API costs start-up time.
import * as z from 'zod/mini';
import type { FsrsColumns } from '../../model/fsrs-state.ts';
import type { EventRow } from '../../store/review-events.ts';

export const EVENT_KINDS = ['rate', 'undo', 'suspend', 'unsuspend', 'bury', 'unbury', 'forget'] as const;
export type EventKind = (typeof EVENT_KINDS)[number];

/** The card's fsrs row before its first event on a device: where a replay of the card starts. */
const seedRow = z.object({
  due: z.number(),
  stability: z.number(),
  difficulty: z.number(),
  elapsed_days: z.number(),
  scheduled_days: z.number(),
  learning_steps: z.number(),
  reps: z.number(),
  lapses: z.number(),
  state: z.union([z.literal(0), z.literal(1), z.literal(2), z.literal(3)]),
  last_review: z.nullable(z.number()),
  suspended: z.union([z.literal(0), z.literal(1)]),
  buried_until: z.nullable(z.number()),
  leech: z.optional(z.union([z.literal(0), z.literal(1)])),
});

const text = z.string().check(z.minLength(1));
const whole = z.int().check(z.minimum(0));

const eventSchema = z
  .object({
    id: text,
    device: text,
    /** The event's place in its device's log: ties on `at` replay in the order they were applied. */
    n: whole,
    card: text,
    at: whole,
    kind: z.enum(EVENT_KINDS),
    /** The study day of `at` (YYYY-MM-DD under the knowledge base's day start), for people reading the log. */
    day: z.string(),
    rating: z.optional(z.int().check(z.minimum(1), z.maximum(4))),
    duration: z.optional(whole),
    /** undo: the id of the event taken back. */
    target: z.optional(text),
    /** forget: reps and lapses reset too. */
    reset: z.optional(z.boolean()),
    /**
     * An imported rating: the card's state before the review as its file said (0 new, 1 learning,
     * 2 review, 3 relearning). kb optimize leaves out a card whose history starts in review.
     */
    state: z.optional(z.int().check(z.minimum(0), z.maximum(3))),
    from: z.optional(seedRow),
  })
  .check(
    z.refine((event) => event.kind !== 'rate' || event.rating !== undefined, { message: 'a rate event needs a rating' }),
    z.refine((event) => event.kind !== 'undo' || event.target !== undefined, { message: 'an undo event needs a target' }),
  );

export type ReviewEvent = z.infer<typeof eventSchema>;
export type SeedRow = z.infer<typeof seedRow>;

/** The line for an event, newline included. */
export function formatEvent(event: ReviewEvent): string {
  return `${JSON.stringify(event)}\n`;
}

/** An event read back from a line, or why the line is not one. */
export function parseEvent(line: string): ReviewEvent | { error: string } {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return { error: 'not JSON' };
  }
  return plainEvent(value) ?? checkEvent(value);
}

/** A parsed line checked by the schema alone: the event, or why it is not one. */
export function checkEvent(value: unknown): ReviewEvent | { error: string } {
  const parsed = eventSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { error: `${issue.path.join('.') || 'event'}: ${issue.message}` };
  }
  return parsed.data;
}

const KINDS: ReadonlySet<unknown> = new Set(EVENT_KINDS);
const isText = (value: unknown): value is string => typeof value === 'string' && value.length > 0;
const isWhole = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;

/**
 * The event a line holds when it is an ordinary one (no `from` seed), checked by hand as
 * eventSchema would check it and built as its parse would (known keys only, in the
 * schema's order); null for anything else, which eventSchema then parses or explains.
 * A clone's first open reads every line of every log: the schema costs several times this.
 */
function plainEvent(value: unknown): ReviewEvent | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const line = value as Record<string, unknown>;
  const { id, device, n, card, at, kind, day, rating, duration, target, reset, state } = line;
  if (!isText(id) || !isText(device) || !isWhole(n) || !isText(card) || !isWhole(at) || !KINDS.has(kind) || typeof day !== 'string') return null;
  if (line.from !== undefined) return null;
  if (rating !== undefined && !(Number.isSafeInteger(rating) && (rating as number) >= 1 && (rating as number) <= 4)) return null;
  if (duration !== undefined && !isWhole(duration)) return null;
  if (target !== undefined && !isText(target)) return null;
  if (reset !== undefined && typeof reset !== 'boolean') return null;
  if (state !== undefined && !(Number.isSafeInteger(state) && (state as number) >= 0 && (state as number) <= 3)) return null;
  if ((kind === 'rate' && rating === undefined) || (kind === 'undo' && target === undefined)) return null;
  const event: ReviewEvent = { id, device, n, card, at, kind: kind as EventKind, day };
  if (rating !== undefined) event.rating = rating as number;
  if (duration !== undefined) event.duration = duration;
  if (target !== undefined) event.target = target;
  if (reset !== undefined) event.reset = reset;
  if (state !== undefined) event.state = state as number;
  return event;
}

/** The row an event is stored as in the database (review_events). */
export function eventRow(event: ReviewEvent): EventRow {
  return {
    id: event.id,
    device: event.device,
    n: event.n,
    card_id: event.card,
    at: event.at,
    kind: event.kind,
    rating: event.rating ?? null,
    duration_ms: event.duration ?? 0,
    target: event.target ?? null,
    reset_counts: event.reset ? 1 : 0,
    seed: event.from ? JSON.stringify(event.from) : null,
    day: event.day,
    source_state: event.state ?? null,
  };
}

/** The log line of a stored event: eventRow's inverse. */
export function eventLine(row: EventRow): ReviewEvent {
  return {
    id: row.id,
    device: row.device,
    n: row.n,
    card: row.card_id,
    at: row.at,
    kind: row.kind,
    day: row.day,
    ...(row.rating !== null ? { rating: row.rating } : {}),
    ...(row.kind === 'rate' ? { duration: row.duration_ms } : {}),
    ...(row.target !== null ? { target: row.target } : {}),
    ...(row.reset_counts === 1 ? { reset: true } : {}),
    ...(row.source_state !== null ? { state: row.source_state } : {}),
    ...(row.seed !== null ? { from: JSON.parse(row.seed) as SeedRow } : {}),
  };
}

/** The seed of a card's first event: its fsrs row before the event, where a replay of the card starts. */
export function seedOf(row: FsrsColumns): SeedRow {
  return {
    due: row.due,
    stability: row.stability,
    difficulty: row.difficulty,
    elapsed_days: row.elapsed_days,
    scheduled_days: row.scheduled_days,
    learning_steps: row.learning_steps,
    reps: row.reps,
    lapses: row.lapses,
    state: row.state,
    last_review: row.last_review,
    suspended: row.suspended,
    buried_until: row.buried_until,
    leech: row.leech ?? 0,
  };
}
