// Which FSRS weights schedule this knowledge base: FSRS-6's defaults, those kb optimize
// fitted (when, on how many reviews, with what scores), or weights set in kb.json by hand
// (no fittedAt), FSRS-4.5's or FSRS-5's read as FSRS-6's. kb stats and kb optimize show it.
import type { KbConfig } from '../../kb/config.ts';
import type { OlderFsrsVersion } from '../../srs/review-settings.ts';
import { localDateLabel } from '../../srs/study-day.ts';

export interface ParametersInUse {
  /** `set`: weights in kb.json that no kb optimize fitted (no fittedAt): pasted from Anki, say. */
  source: 'default' | 'fitted' | 'set';
  fittedAt: string | null;
  reviews: number | null;
  logLoss: number | null;
  rmseBins: number | null;
  /** The weights were FSRS-4.5's 17 or FSRS-5's 19, read as the FSRS-6 weights they migrate to; else null. */
  migratedFrom: OlderFsrsVersion | null;
}

export function parametersInUse(config: KbConfig): ParametersInUse {
  const given = config.fsrsParameters;
  if (!given) return { source: 'default', fittedAt: null, reviews: null, logLoss: null, rmseBins: null, migratedFrom: null };
  return {
    source: given.fittedAt === undefined ? 'set' : 'fitted',
    fittedAt: given.fittedAt ?? null,
    reviews: given.reviews ?? null,
    logLoss: given.logLoss ?? null,
    rmseBins: given.rmseBins ?? null,
    migratedFrom: given.migratedFrom ?? null,
  };
}

/** The day weights were fitted, on the learner's own calendar (fittedAt is stored in UTC). */
export function fitDateLabel(fittedAt: string): string {
  return localDateLabel(Date.parse(fittedAt));
}

/** What a migration did, said once where the weights in use are shown. */
export function migrationNote(from: OlderFsrsVersion): string {
  const how = from === 'FSRS-5' ? "19 weights, read as FSRS-6's 21 (w[19] 0, w[20] 0.5)" : "17 weights, read as FSRS-6's 21 (w[4]-w[6] rewritten, w[17]-w[19] 0, w[20] 0.5)";
  return `${from}'s ${how}`;
}

export function parametersLine(parameters: ParametersInUse): string {
  if (parameters.source === 'default') return 'FSRS parameters: defaults (FSRS-6); kb optimize fits them to your history';
  // Each score described only when kb.json gives it: by hand, none need be there.
  const scores = [
    parameters.logLoss !== null ? `log loss ${parameters.logLoss.toFixed(4)}` : null,
    parameters.rmseBins !== null ? `RMSE(bins) ${parameters.rmseBins.toFixed(4)}` : null,
  ].filter((part) => part !== null);
  const head =
    parameters.source === 'fitted'
      ? `FSRS parameters: fitted ${fitDateLabel(parameters.fittedAt as string)}${parameters.reviews !== null ? ` on ${parameters.reviews} reviews` : ''}`
      : 'FSRS parameters: set in kb.json (not fitted by kb optimize)';
  const line = `${head}${scores.length > 0 ? ` (${scores.join(', ')})` : ''}`;
  return parameters.migratedFrom === null ? line : `${line}; ${migrationNote(parameters.migratedFrom)}`;
}
