// Which FSRS weights schedule this knowledge base: FSRS-6's defaults, or those kb optimize
// fitted (when, on how many reviews, with what scores). kb stats shows it.
import type { KbConfig } from '../../kb/config.ts';
import { localDateLabel } from '../../srs/study-day.ts';

export interface ParametersInUse {
  source: 'default' | 'fitted';
  fittedAt: string | null;
  reviews: number | null;
  logLoss: number | null;
  rmseBins: number | null;
}

export function parametersInUse(config: KbConfig): ParametersInUse {
  const fitted = config.fsrsParameters;
  if (!fitted) return { source: 'default', fittedAt: null, reviews: null, logLoss: null, rmseBins: null };
  return { source: 'fitted', fittedAt: fitted.fittedAt, reviews: fitted.reviews, logLoss: fitted.logLoss, rmseBins: fitted.rmseBins };
}

/** The day weights were fitted, on the learner's own calendar (fittedAt is stored in UTC). */
export function fitDateLabel(fittedAt: string): string {
  return localDateLabel(Date.parse(fittedAt));
}

export function parametersLine(parameters: ParametersInUse): string {
  if (parameters.source === 'default') return 'FSRS parameters: defaults (FSRS-6); kb optimize fits them to your history';
  return (
    `FSRS parameters: fitted ${fitDateLabel(parameters.fittedAt as string)} on ${parameters.reviews} reviews ` +
    `(log loss ${parameters.logLoss?.toFixed(4)}, RMSE(bins) ${parameters.rmseBins?.toFixed(4)})`
  );
}
