import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { default_w, migrateParameters } from 'ts-fsrs';
import { describe, expect, it, vi } from 'vitest';
import { ConfigError, defaultConfig, defaultConfigText, loadConfig } from '../../src/kb/config.ts';

function configFile(text: string): string {
  const file = join(mkdtempSync(join(tmpdir(), 'kb-config-')), 'kb.json');
  writeFileSync(file, text);
  return file;
}

describe('kb.json', () => {
  it('has the documented defaults', () => {
    expect(defaultConfig).toEqual({
      desiredRetention: 0.9,
      maximumInterval: 36500,
      learningSteps: ['1m', '10m'],
      relearningSteps: ['10m'],
      newPerDay: 20,
      reviewsPerDay: 200,
      dayStartsAt: '04:00',
      fuzz: true,
      newCardOrder: 'interleave',
      leechThreshold: 8,
      leechAction: 'tag',
      notesFolders: ['notes'],
      idKey: 'id',
    });
  });

  it('gives the defaults for a missing file and fills in missing keys', () => {
    expect(loadConfig(join(tmpdir(), 'no-such-dir', 'kb.json'))).toEqual(defaultConfig);
    expect(loadConfig(configFile('{ "newPerDay": 5 }'))).toEqual({ ...defaultConfig, newPerDay: 5 });
  });

  it('round-trips the text kb init writes', () => {
    expect(loadConfig(configFile(defaultConfigText()))).toEqual(defaultConfig);
  });

  it('names the file and the key of a wrong value', () => {
    const file = configFile('{ "desiredRetention": 2 }');
    expect(() => loadConfig(file)).toThrow(ConfigError);
    expect(() => loadConfig(file)).toThrow(new RegExp(`^${file}: desiredRetention: `));
    expect(() => loadConfig(configFile('{ "dayStartsAt": "4am" }'))).toThrow(/dayStartsAt: .*HH:MM/);
    expect(() => loadConfig(configFile('{ "learningSteps": ["1m", "soon"] }'))).toThrow(/learningSteps\.1: /);
    // The reason, not just "Invalid input".
    expect(() => loadConfig(file)).toThrow(/desiredRetention: Too big: expected number to be <=0\.99$/);
    expect(() => loadConfig(configFile('{ "newPerDay": 1.5 }'))).toThrow(/newPerDay: .*expected int/);
    expect(() => loadConfig(configFile('{ "fuzz": "yes" }'))).toThrow(/fuzz: .*expected boolean, received string/);
  });

  it('takes a desired retention from 0.70 to 0.99, both included, as Anki does (found by a probe: 0.7 was refused, ">0.7")', () => {
    for (const retention of [0.7, 0.75, 0.99]) expect(loadConfig(configFile(JSON.stringify({ desiredRetention: retention }))).desiredRetention).toBe(retention);
    expect(() => loadConfig(configFile('{ "desiredRetention": 0.69 }'))).toThrow(/desiredRetention: Too small: expected number to be >=0\.7$/);
    expect(() => loadConfig(configFile('{ "desiredRetention": 0.995 }'))).toThrow(/desiredRetention: Too big: expected number to be <=0\.99$/);
  });

  it('refuses fitted weights outside the ranges FSRS keeps them in, naming the weight (found as a user: taken silently)', () => {
    // ts-fsrs clamped such a weight where it scheduled while fsrs-rs scored it as written, so
    // kb optimize's "in use" row judged weights that scheduled nothing.
    const fitted = (weights: number[]) =>
      configFile(JSON.stringify({ fsrsParameters: { weights, fittedAt: '2026-11-27T10:00:00.000Z', reviews: 100, logLoss: 0.3, rmseBins: 0.05, previousLogLoss: 0.35, previousRmseBins: 0.07 } }));
    const weights = [...default_w];
    expect(loadConfig(fitted(weights)).fsrsParameters?.weights).toEqual(weights);
    expect(() => loadConfig(fitted(weights.map((w, i) => (i === 20 ? 5 : w))))).toThrow(/: fsrsParameters\.weights\.20: 5 is outside the range FSRS keeps w\[20\] in \(0\.1 to 0\.8\)/);
    expect(() => loadConfig(fitted(weights.map((w, i) => (i === 0 ? -1 : w))))).toThrow(/fsrsParameters\.weights\.0: -1 is outside the range FSRS keeps w\[0\] in \(0\.001 to 100\)/);
    // What fsrs-rs gives at a bound, a 32-bit float a hair past it (0.8 is 0.800000011920929), is in.
    expect(loadConfig(fitted(weights.map((w, i) => (i === 20 ? Math.fround(0.8) : i === 19 ? 0 : w)))).fsrsParameters?.weights[20]).toBe(Math.fround(0.8));
    expect(() => loadConfig(fitted(weights.slice(0, 18)))).toThrow(/fsrsParameters\.weights: expected 21 weights \(FSRS-6\), 19 weights \(FSRS-5\) or 17 weights \(FSRS-4\.5\); the older two are migrated to FSRS-6$/);
  });

  it('reads FSRS-5\'s 19 and FSRS-4.5\'s 17 weights as the FSRS-6 weights ts-fsrs migrates them to, and weights pasted by hand need no fit\'s fields (found by a probe: refused, ">=21 items")', () => {
    // As older Anki versions export them: the weights alone.
    const fsrs5 = [0.40255, 1.18385, 3.173, 15.69105, 7.1949, 0.5345, 1.4604, 0.0046, 1.54575, 0.1192, 1.01925, 1.9395, 0.11, 0.29605, 2.2698, 0.2315, 2.9898, 0.51655, 0.6621];
    const fsrs45 = [0.4872, 1.4003, 3.7145, 13.8206, 5.1618, 1.2298, 0.8975, 0.031, 1.6474, 0.1367, 1.0461, 2.1072, 0.0793, 0.3246, 1.587, 0.2272, 2.8755];
    // ts-fsrs's own migration (which kb does not call: it logs on stdout, and clamps).
    const debug = vi.spyOn(console, 'debug').mockImplementation(() => {});
    const expected = (w: number[]) => migrateParameters(w, 1, true);
    for (const [w, from] of [[fsrs5, 'FSRS-5'], [fsrs45, 'FSRS-4.5']] as const) {
      const read = loadConfig(configFile(JSON.stringify({ fsrsParameters: { weights: w } }))).fsrsParameters;
      expect(read).toEqual({ weights: expected([...w]), migratedFrom: from });
    }
    debug.mockRestore();
    // FSRS-6's own weights, by hand: no fit's fields needed, and none made up.
    expect(loadConfig(configFile(JSON.stringify({ fsrsParameters: { weights: default_w } }))).fsrsParameters).toEqual({ weights: [...default_w] });
    // A fittedAt given must be a time: kb optimize judges the weights on the reviews since.
    expect(() => loadConfig(configFile(JSON.stringify({ fsrsParameters: { weights: default_w, fittedAt: 'yesterday' } })))).toThrow(/fsrsParameters\.fittedAt: a date and time such as/);
    // A migrated weight out of range is named with the value it was written as (FSRS-4.5's w5 makes FSRS-6's w4 too).
    const wrong = fsrs45.map((w, i) => (i === 5 ? 40 : w));
    expect(() => loadConfig(configFile(JSON.stringify({ fsrsParameters: { weights: wrong } })))).toThrow(/fsrsParameters\.weights\.4: 5\.1618 \(FSRS-4\.5's; 85\.1618 as FSRS-6's w\[4\] once migrated, with w\[5\] 40\) is outside the range FSRS keeps w\[4\] in \(1 to 10\)/);
    expect(() => loadConfig(configFile(JSON.stringify({ fsrsParameters: { weights: fsrs5.map((w, i) => (i === 18 ? 3 : w)) } })))).toThrow(/fsrsParameters\.weights\.18: 3 is outside the range FSRS keeps w\[18\] in \(0 to 2\)/);
  });

  it('names an unknown key (a typo) and broken JSON', () => {
    expect(() => loadConfig(configFile('{ "newPerDya": 5 }'))).toThrow(/newPerDya: unknown key/);
    expect(() => loadConfig(configFile('{ "newPerDay": '))).toThrow(/kb\.json: not valid JSON/);
    // One line, though JSON.parse quotes the text with its newline (found as a user).
    expect(() => loadConfig(configFile('not json\n'))).toThrow(/^[^\n]*kb\.json: not valid JSON: [^\n]*$/);
  });

  it('says a file stands in the way when part of kb.json\'s path is a file (XDG_CONFIG_HOME naming a file)', () => {
    const file = configFile('{}');
    // In the words of every file-system fault (fs-fault.ts), with the likely cause.
    expect(() => loadConfig(join(file, 'kb', 'kb.json'))).toThrow(/kb\.json: cannot read: a file stands where a folder is expected; move it away \(ENOTDIR on open\); is XDG_CONFIG_HOME \(by default ~\/\.config\) or its kb folder a file\?$/);
    // Any other fault is said the same way: a folder named kb.json read "EISDIR: illegal operation on a directory, read".
    const dir = join(mkdtempSync(join(tmpdir(), 'kb-config-')), 'kb.json');
    mkdirSync(dir);
    expect(() => loadConfig(dir)).toThrow(/^[^\n]*kb\.json: cannot read: a folder stands where a file is expected; move it away \(EISDIR on read\)$/);
  });

  it('says what to write in an empty kb.json (it read "Unexpected end of JSON input")', () => {
    for (const text of ['', '\n  \n', '\uFEFF']) expect(() => loadConfig(configFile(text))).toThrow(/kb\.json: empty; write \{\} for the defaults \(kb init writes every setting with its default\)$/);
  });
});
