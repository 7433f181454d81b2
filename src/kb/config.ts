// kb.json: the settings of one knowledge base. Its presence also marks a folder as a
// knowledge base for the "nearest folder up from here" lookup (see location.ts).
import { readFileSync } from 'node:fs';
// zod/mini: the same validation as zod's classic API, but tree-shakable: kb starts ~20 ms
// sooner without the whole of zod on the path of every command. The English messages come
// from their own file: zod/locales would bring every language along.
import * as z from 'zod/mini';
import en from 'zod/v4/locales/en.js';
import { DEFAULT_ID_KEY, RESERVED_NOTE_KEYS } from './card-meta.ts';
import { describeFsFault, isFsFault } from './fs-fault.ts';
import { NEW_CARD_ORDERS } from '../srs/new-card-order.ts';
import { FSRS_VERSIONS, FSRS_WEIGHT_RANGES, LEARNING_STEP, migratedWeights, weightInRange } from '../srs/review-settings.ts';

// Mini carries no messages of its own: without a locale every error reads "Invalid input".
z.config(en());

export const configFileName = 'kb.json';

const stepSchema = z.string().check(z.regex(LEARNING_STEP, 'a duration such as "1m", "10m", "1h" or "1d"'));
const wholeNumber = (min: number) => z.int().check(z.minimum(min));

const versions = Object.keys(FSRS_VERSIONS).map(Number).sort((a, b) => b - a);

/**
 * kb.json's fsrsParameters: the weights, and what `kb optimize` writes beside them to describe
 * its fit (when, on how many reviews, the scores). Those describe a fit only, so each may be left
 * out: weights pasted by hand (from Anki, say) need nothing made up beside them, and weights
 * without `fittedAt` are judged by kb optimize on all the reviews, as the defaults are.
 * FSRS-4.5's 17 and FSRS-5's 19 weights are read as the FSRS-6 weights they migrate to
 * (`migratedFrom` says which they were; kb stats and kb optimize say so).
 */
const fsrsParametersSchema = z.pipe(
  z.strictObject({
    weights: z.array(z.number()).check(
      z.refine((weights) => versions.includes(weights.length), {
        message: `expected ${versions.map((n) => `${n} weights (${FSRS_VERSIONS[n as keyof typeof FSRS_VERSIONS]})`).join(', ').replace(/, ([^,]*)$/, ' or $1')}; the older two are migrated to FSRS-6`,
        abort: true,
      }),
      // Each in its range (once migrated): out of it, ts-fsrs scheduled with it clamped while
      // kb optimize's "in use" row (fsrs-rs) scored it as written, and nothing said so.
      z.superRefine((weights, ctx) => {
        const migrated = migratedWeights(weights);
        migrated.weights.forEach((weight, index) => {
          const range = FSRS_WEIGHT_RANGES[index];
          if (!range || weightInRange(index, weight)) return;
          // FSRS-4.5's w4-w6 are rewritten by the migration (w4 from w4 and w5): the value judged
          // is said beside the one written.
          const written = weights[index];
          const shown = written === weight ? `${weight}` : `${written} (${migrated.from}'s; ${weight} as FSRS-6's w[${index}] once migrated${index === 4 ? `, with w[5] ${weights[5]}` : ''})`;
          ctx.issues.push({ code: 'custom', input: written, path: [index], message: `${shown} is outside the range FSRS keeps w[${index}] in (${range[0]} to ${range[1]}); kb optimize fits weights within it` });
        });
      }),
    ),
    fittedAt: z.optional(z.string().check(z.refine((text) => Number.isFinite(Date.parse(text)), 'a date and time such as "2026-11-27T10:00:00.000Z" (when kb optimize fitted the weights); leave it out for weights it did not fit'))),
    reviews: z.optional(wholeNumber(0)),
    logLoss: z.optional(z.number()),
    rmseBins: z.optional(z.number()),
    previousLogLoss: z.optional(z.number()),
    previousRmseBins: z.optional(z.number()),
  }),
  z.transform(({ weights, ...rest }) => {
    const migrated = migratedWeights(weights);
    return { ...rest, weights: migrated.weights, ...(migrated.from ? { migratedFrom: migrated.from } : {}) };
  }),
);

export const configSchema = z.strictObject({
  /**
   * Target probability of recall when a card comes due (FSRS request_retention): 0.70 to 0.99,
   * both included, as Anki's deck options allow (0.7 was refused, with no reason kb holds).
   */
  desiredRetention: z._default(z.number().check(z.gte(0.7), z.lte(0.99)), 0.9),
  /** Longest interval FSRS may schedule, in days. */
  maximumInterval: z._default(wholeNumber(1), 36500),
  learningSteps: z._default(z.array(stepSchema), ['1m', '10m']),
  relearningSteps: z._default(z.array(stepSchema), ['10m']),
  /** New cards introduced per day by `kb review`. */
  newPerDay: z._default(wholeNumber(0), 20),
  /** Review cards shown per day by `kb review`. */
  reviewsPerDay: z._default(wholeNumber(0), 200),
  /** Local time when a study day begins (as Anki's 4 am): reviews before it count for the day before. */
  dayStartsAt: z._default(z.string().check(z.regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'a local time "HH:MM"')), '04:00'),
  /** Spread intervals a little so cards learned together do not stay together. */
  fuzz: z._default(z.boolean(), true),
  /** The order new cards come in: decks and note folders in turn, file order, or shuffled per study day. */
  newCardOrder: z._default(z.enum(NEW_CARD_ORDERS, 'one of "interleave", "file", "random"'), 'interleave'),
  /** Lapses that make a card a leech (Anki: 8); again every half of it after. */
  leechThreshold: z._default(wholeNumber(1), 8),
  /** What a leech gets: `tag` (flagged, listed by kb cards --state leech) or `suspend` as well. */
  leechAction: z._default(z.enum(['tag', 'suspend']), 'tag'),
  /** FSRS weights fitted by `kb optimize` or set by hand (absent: FSRS-6 defaults); see fsrsParametersSchema. */
  fsrsParameters: z.optional(fsrsParametersSchema),
  /** Folders holding notes, relative to the knowledge base (`.`: all of it, as an Obsidian vault). */
  notesFolders: z._default(z.array(z.string().check(z.regex(/^(?![/\\]|[A-Za-z]:)(?!(.*[/\\])?\.\.([/\\]|$)).+$/, 'a folder inside the knowledge base, such as "notes" or "."'))).check(z.minLength(1)), ['notes']),
  /** The frontmatter key that holds a note's card id (`kb_id` in a vault whose notes use `id:` for ids of their own). */
  idKey: z._default(z.string().check(
    z.regex(/^[A-Za-z_][A-Za-z0-9_-]{0,63}$/, 'a frontmatter key of letters, digits, _ and -, such as "id" or "kb_id"'),
    z.refine((key) => !RESERVED_NOTE_KEYS.includes(key), 'a key kb reads as something else (a date, tags, lab...); use one such as "kb_id"'),
  ), DEFAULT_ID_KEY),
});

export type KbConfig = z.infer<typeof configSchema>;

export const defaultConfig: KbConfig = configSchema.parse({});

export class ConfigError extends Error {
  /** What is wrong, in a few words without the file (a key's name): for a status line that must stay short. */
  readonly problem: string;
  constructor(message: string, problem: string = message) {
    super(message);
    this.name = 'ConfigError';
    this.problem = problem;
  }
}

/** Validates parsed JSON; errors name the file and the key. */
export function parseConfig(value: unknown, file: string): KbConfig {
  const result = configSchema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const keys = issue.code === 'unrecognized_keys' ? issue.keys : [];
  const key = keys.length > 0 ? keys.join(', ') : issue.path.join('.');
  const message = issue.code === 'unrecognized_keys' ? 'unknown key' : issue.message;
  const problem = issue.code === 'unrecognized_keys' ? `unknown key ${key}` : key || message;
  return failConfig(`${file}: ${key ? `${key}: ` : ''}${message}`, problem);
}

function failConfig(message: string, problem: string): never {
  throw new ConfigError(message, problem);
}

/** Reads a kb.json; a missing file gives the defaults. */
export function loadConfig(file: string | null): KbConfig {
  if (file === null) return defaultConfig;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return defaultConfig;
    if (!isFsFault(error)) throw new ConfigError(`${file}: cannot read: ${(error as Error).message}`, 'cannot be read');
    // Said as kb says every file-system fault (ENOTDIR read "cannot read: ENOTDIR: not a
    // directory, open '…'"), the file named once: the fault's own path is this file.
    const { code: fault, syscall } = error;
    // A file in kb.json's path: only the bundled knowledge base's kb.json, under the user's
    // config folder, can meet one (--kb and KB_DIR naming a file are refused before this).
    const hint = fault === 'ENOTDIR' ? '; is XDG_CONFIG_HOME (by default ~/.config) or its kb folder a file?' : '';
    throw new ConfigError(`${file}: cannot read: ${describeFsFault({ code: fault, syscall })}${hint}`, 'cannot be read');
  }
  return parseConfig(configJson(text, file), file);
}

/** kb.json's text as JSON, not yet checked as settings (kb optimize's write reads it so too). */
export function configJson(text: string, file: string): unknown {
  const json = text.replace(/^\uFEFF/, '');
  // An empty file read "not valid JSON: Unexpected end of JSON input", saying nothing of what to do.
  if (json.trim() === '') throw new ConfigError(`${file}: empty; write {} for the defaults (kb init writes every setting with its default)`, 'empty');
  try {
    return JSON.parse(json);
  } catch (error) {
    // JSON.parse quotes the text it stopped in, newlines and all: one line, as every kb error is.
    throw new ConfigError(`${file}: not valid JSON: ${(error as Error).message.replace(/\s+/g, ' ')}`, 'not valid JSON');
  }
}

/** The text `kb init` writes: every setting with its default, so users see what they can change. */
export function defaultConfigText(): string {
  return `${JSON.stringify(defaultConfig, null, 2)}\n`;
}
