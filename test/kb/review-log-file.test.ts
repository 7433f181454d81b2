// A device's log file: events round-trip through their line, bad lines say why, appends are
// read back incrementally, and a half-written last line waits for its newline.
import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import '../../src/kb/config.ts';
import { checkEvent, formatEvent, parseEvent, type ReviewEvent } from '../../src/kb/review-log/event.ts';
import { appendEvents } from '../../src/kb/review-log/device-log.ts';
import { deviceLogPath, lastEventOf, listLogFiles, readLogFrom } from '../../src/kb/review-log/log-file.ts';
import { tempDir } from '../helpers/kb-cli.ts';

const RATE: ReviewEvent = { id: 'e1', device: 'dev', n: 0, card: 'abcdefghijkl', at: 1767614400000, kind: 'rate', day: '2026-01-05', rating: 3, duration: 4200 };

describe('review log events', () => {
  it('round-trip through one line', () => {
    expect(formatEvent(RATE).endsWith('\n')).toBe(true);
    expect(parseEvent(formatEvent(RATE).trim())).toEqual(RATE);
    // An imported rating keeps the state its file gave (0-3).
    expect(parseEvent(formatEvent({ ...RATE, state: 2 }).trim())).toEqual({ ...RATE, state: 2 });
    expect(parseEvent(JSON.stringify({ ...RATE, state: 4 }))).toMatchObject({ error: expect.stringMatching(/^state: /) });
  });

  it('say what is wrong with a line that is not an event', () => {
    expect(parseEvent('{"id":')).toEqual({ error: 'not JSON' });
    expect(parseEvent(JSON.stringify({ ...RATE, rating: undefined }))).toEqual({ error: 'event: a rate event needs a rating' });
    expect(parseEvent(JSON.stringify({ ...RATE, kind: 'delete' }))).toMatchObject({ error: expect.stringMatching(/^kind: /) });
    expect(parseEvent(JSON.stringify({ ...RATE, kind: 'undo', rating: undefined }))).toEqual({ error: 'event: an undo event needs a target' });
  });

  it('read the same by the hand-written check of ordinary lines as by the schema alone, key order included', () => {
    const values = [0, -0, 1, 2, 4, 5, -1, 1.5, 2 ** 53, 2 ** 53 - 1, '', 'x', 'rate', null, true, false, [], {}];
    const keys = ['id', 'device', 'n', 'card', 'at', 'kind', 'day', 'rating', 'duration', 'target', 'reset', 'state', 'from', 'other'];
    const kinds = ['rate', 'undo', 'suspend', 'unsuspend', 'bury', 'unbury', 'forget', 'delete'];
    fc.assert(
      fc.property(fc.constantFrom(...kinds), fc.dictionary(fc.constantFrom(...keys), fc.constantFrom(...values)), fc.boolean(), (kind, changes, shuffled) => {
        const event: Record<string, unknown> = { ...RATE, kind, target: 'e0', ...changes };
        const entries = Object.entries(event);
        const line = JSON.stringify(Object.fromEntries(shuffled ? entries.reverse() : entries));
        expect(JSON.stringify(parseEvent(line))).toBe(JSON.stringify(checkEvent(JSON.parse(line))));
      }),
      { numRuns: 3000 },
    );
  });
});

describe('review log files', () => {
  it('appends, lists and reads from an offset; a partial last line is left for later', () => {
    const folder = join(tempDir('kb-log-'), 'reviews');
    expect(listLogFiles(folder)).toEqual([]);
    const path = deviceLogPath(folder, 'dev');
    const size = appendEvents(path, folder, [RATE, { ...RATE, id: 'e2', n: 1 }]);
    expect(listLogFiles(folder)).toEqual(['dev.jsonl']);
    const first = readLogFrom(path, 0);
    expect(first.lines.map((line) => line.event)).toEqual([RATE, { ...RATE, id: 'e2', n: 1 }]);
    expect(first.offset).toBe(size);
    appendFileSync(path, formatEvent({ ...RATE, id: 'e3', n: 2 }) + '{"id":"e4"');
    const second = readLogFrom(path, first.offset);
    expect(second.lines.map((line) => (line.event as ReviewEvent).id)).toEqual(['e3']);
    expect(second.offset).toBeLessThan(second.size);
    expect(readLogFrom(path, second.offset).lines).toEqual([]);
    // A file shorter than what was read (rewritten, not appended to) is read from the start.
    writeFileSync(path, formatEvent(RATE));
    expect(readLogFrom(path, second.offset).lines).toHaveLength(1);
  });

  it('reads a file with characters beyond ASCII as one without: the same events, each line at its byte', () => {
    const folder = tempDir('kb-log-');
    const lines = (card: string) => [formatEvent({ ...RATE, card }), '  \n', 'not json\r\n', formatEvent({ ...RATE, id: 'e2', n: 1, card }), '{"id":"half'];
    for (const card of ['card-a', 'carte-é', 'カード', 'emoji-🃏']) {
      const path = join(folder, `${card}.jsonl`);
      const text = lines(card).join('');
      writeFileSync(path, text);
      const read = readLogFrom(path, 0);
      expect(read.lines.map((line) => line.event)).toEqual([{ ...RATE, card }, { error: 'not JSON' }, { ...RATE, id: 'e2', n: 1, card }]);
      const bytes = Buffer.from(text);
      // Each line's byte offset: where its text starts in the file.
      for (const line of read.lines) expect(bytes.subarray(line.byte).toString().startsWith('error' in line.event ? 'not json' : '{"id"')).toBe(true);
      expect(read.offset).toBe(bytes.length - Buffer.byteLength('{"id":"half'));
    }
  });
});

describe('appending to a log that does not end in a newline', () => {
  it('starts a line of its own: the event was glued onto the last line and lost with it (found by a fault probe)', () => {
    const folder = tempDir('kb-log-');
    const path = deviceLogPath(folder, 'dev');
    appendEvents(path, folder, [RATE]);
    // Cut short by a copy: the final newline gone.
    writeFileSync(path, formatEvent(RATE).trimEnd());
    appendEvents(path, folder, [{ ...RATE, id: 'e2', n: 1 }]);
    const read = readLogFrom(path, 0).lines.map((line) => line.event);
    expect(read).toEqual([RATE, { ...RATE, id: 'e2', n: 1 }]);
    // A half line from elsewhere is one bad line, and the event after it stands.
    appendFileSync(path, '{"id":"partial","n":');
    appendEvents(path, folder, [{ ...RATE, id: 'e3', n: 2 }]);
    expect(readLogFrom(path, 0).lines.map((line) => ('error' in line.event ? line.event.error : line.event.id))).toEqual(['e1', 'e2', 'not JSON', 'e3']);
  });

  it('find the last complete line of a device at the end of a file of any length, reading backwards', () => {
    const folder = join(tempDir('kb-log-'), 'reviews');
    const path = deviceLogPath(folder, 'dev');
    expect(lastEventOf(path, 'dev')).toBeNull();
    // Lines of every length around the 64 KiB chunk, so that some lines cross a chunk's edge.
    const events: ReviewEvent[] = [];
    for (let n = 0; n < 700; n++) events.push({ ...RATE, id: `e${n}-${'x'.repeat((n * 37) % 300)}`, n });
    appendEvents(path, folder, events);
    expect(lastEventOf(path, 'dev')).toEqual(events.at(-1));
    // A half-written last line, a bad one and another device's line are passed over.
    appendFileSync(path, `not json\n${formatEvent({ ...RATE, device: 'other', id: 'o1' })}{"id":"half`);
    expect(lastEventOf(path, 'dev')).toEqual(events.at(-1));
    expect(lastEventOf(path, 'other')?.id).toBe('o1');
    expect(lastEventOf(path, 'nobody')).toBeNull();
    // One line longer than a chunk.
    writeFileSync(path, formatEvent({ ...RATE, id: 'y'.repeat(200_000) }));
    expect(lastEventOf(path, 'dev')?.id).toHaveLength(200_000);
  });
});
