import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { gpt2Tokenizer } from '../../src/engine/index.ts';
import { TextStream } from '../../src/serve/text-stream.ts';

const EOS = gpt2Tokenizer.eosTokenId;

function run(ids: number[], stops: string[]) {
  const stream = new TextStream(gpt2Tokenizer, stops, new Set([EOS]));
  const deltas: string[] = [];
  let stopString: string | null = null;
  for (let i = 0; i < ids.length; i++) {
    const step = stream.push(ids[i], i === ids.length - 1);
    deltas.push(step.delta);
    if (step.stopString !== null) {
      stopString = step.stopString;
      break;
    }
  }
  return { deltas, text: deltas.join(''), stopString, sent: stream.text };
}

describe('TextStream', () => {
  it('sends a multi-byte character only once all its tokens have arrived', () => {
    const ids = gpt2Tokenizer.encode('a 🦙 b');
    const { deltas, text } = run(ids, []);
    expect(text).toBe('a 🦙 b');
    expect(deltas.some((d) => d.includes('\uFFFD'))).toBe(false);
  });

  it('cuts the text before a stop string and reports which one', () => {
    const ids = gpt2Tokenizer.encode('one two three four');
    const { text, stopString } = run(ids, ['three', 'four']);
    expect(text).toBe('one two ');
    expect(stopString).toBe('three');
  });

  it('never sends the start of a stop string that then completes', () => {
    const ids = gpt2Tokenizer.encode('hello world\n\nUser: more');
    const { deltas, stopString } = run(ids, ['\n\nUser:']);
    expect(stopString).toBe('\n\nUser:');
    expect(deltas.join('')).toBe('hello world');
  });

  it('leaves out the end-of-text token', () => {
    const { text } = run([...gpt2Tokenizer.encode('done'), EOS], []);
    expect(text).toBe('done');
  });

  it('stops at the stop string the streamed text completes first, not the one that starts first', () => {
    const { text, stopString } = run(gpt2Tokenizer.encode('b:的'), [':', 'b:的']);
    expect(stopString).toBe(':');
    expect(text).toBe('b');
  });

  it('sends exactly the text the tokens encode, cut at the first stop string (property)', () => {
    // Text with multi-byte characters (CJK, emoji) that BPE splits across tokens.
    const text = fc.string({ unit: fc.constantFrom('a', ' ', 'b', '\n', '的', '🦙', 'é', 'Q', ':'), maxLength: 40 });
    fc.assert(
      fc.property(text, fc.array(fc.string({ unit: fc.constantFrom('a', 'b', ' ', '的', ':'), minLength: 1, maxLength: 3 }), { maxLength: 2 }), (full, stops) => {
        const ids = gpt2Tokenizer.encode(full);
        fc.pre(ids.length > 0);
        const { text: sent, stopString } = run(ids, stops);
        const hits = stops.flatMap((s) => (full.includes(s) ? [full.indexOf(s) + s.length] : []));
        if (hits.length === 0) {
          expect(stopString).toBeNull();
          expect(sent).toBe(full);
        } else {
          // Streamed, as vLLM checks them: generation stops at the first stop string the text so
          // far completes, cut where it starts. Of ":" and "b:的" in "b:的", ":" completes first
          // ("b" sent), though "b:的" starts earlier (the oracle cut at the earliest start, and a
          // random run found it).
          expect(stops).toContain(stopString);
          expect(full.startsWith(sent + stopString)).toBe(true);
          expect(sent.length).toBeLessThan(Math.min(...hits));
          for (const stop of stops) expect(sent).not.toContain(stop);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('decodes a token sequence the same way whatever was decoded before (no bytes leak between calls)', () => {
    const cut = gpt2Tokenizer.encode('🦙').slice(0, 1);
    const alone = gpt2Tokenizer.decode(gpt2Tokenizer.encode(' b'));
    gpt2Tokenizer.decode(cut);
    expect(gpt2Tokenizer.decode(gpt2Tokenizer.encode(' b'))).toBe(alone);
  });
});
