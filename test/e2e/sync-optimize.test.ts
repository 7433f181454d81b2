// kb optimize writes its fitted weights into kb.json, which is committed with the notes so that
// every clone replays under the same weights. kb sync refused that write as the user's own
// change (found as a user); it commits it now, and still refuses any other edit of kb.json.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { default_w } from 'ts-fsrs';
import { describe, expect, it } from 'vitest';
import { writeConfigKey } from '../../src/kb/config-write.ts';
import { git, rate, sync, twoClones } from '../helpers/git-clones.ts';

/** What kb optimize writes (src/cli/optimize.ts), here without a fit. */
function fittedWeights(root: string): void {
  const weights = default_w.map((w, i) => (i === 0 ? w * 1.5 : w));
  writeConfigKey(root, join(root, 'kb.json'), 'fsrsParameters', { weights, fittedAt: '2026-11-26T10:00:00.000Z', reviews: 1280, logLoss: 0.31, rmseBins: 0.04, previousLogLoss: 0.33, previousRmseBins: 0.06 });
}

describe('kb sync and the weights kb optimize wrote', () => {
  it('commits them with the reviews, and the other clone replays under them', () => {
    const { a, b, ids } = twoClones();
    rate(a, ids[0], 'good');
    fittedWeights(a);
    const synced = sync(a);
    expect(synced.code, synced.stderr).toBe(0);
    expect(git(a, 'log', '-1', '--format=%s')).toContain('fitted FSRS weights (kb.json)');
    expect(git(a, 'status', '--porcelain')).toBe('');
    expect(sync(b).code).toBe(0);
    expect(JSON.parse(readFileSync(join(b, 'kb.json'), 'utf8')).fsrsParameters.reviews).toBe(1280);
  });

  it('still refuses an edit of kb.json beside them', () => {
    const { a } = twoClones();
    fittedWeights(a);
    const config = JSON.parse(readFileSync(join(a, 'kb.json'), 'utf8'));
    writeFileSync(join(a, 'kb.json'), `${JSON.stringify({ ...config, newPerDay: 5 }, null, 2)}\n`);
    const refused = sync(a);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("uncommitted changes besides kb's in kb.json");
  });
});
