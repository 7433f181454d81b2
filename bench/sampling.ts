// What drawing one token costs the CPU backend, run by hand:
//   . scripts/node-env.sh && node --import tsx bench/sampling.ts [--vocab 50257] [--draws 400]
// Per token, on GPT-2's vocabulary: greedy (the argmax kernel), temperature 1 with no filter (the
// OpenAI API's default, so kb serve's), temperature 0.7 with top-p 0.9, and top-k 50; each
// with the weights from Math.exp (plain TypeScript kernels) and from the WebAssembly SIMD
// kernel, on two rows of logits: flat ones (what kb's synthetic weights give: most of the
// vocabulary is in a top-p nucleus) and peaked ones (a trained model's: a small nucleus).
// Medians of rounds; compare figures within one run.
import { parseArgs } from 'node:util';
import { argmax, createSampleScratch, sampleToken, type SampleScratch } from '../src/engine/backend/cpu/sample.ts';
import { wasmKernels, wasmKernelsSupported } from '../src/engine/backend/cpu/wasm/load-kernels.ts';
import { wasm } from '../src/engine/backend/cpu/wasm/webassembly.ts';

const { values: args } = parseArgs({ options: { vocab: { type: 'string', default: '50257' }, draws: { type: 'string', default: '400' } } });
const VOCAB = Number(args.vocab);
const DRAWS = Number(args.draws);
const ROUNDS = 5;

const memory = new wasm.Memory({ initial: Math.ceil((4 * VOCAB * 3) / 65536) + 1, maximum: 4096, shared: true });
if (!(await wasmKernelsSupported())) throw new Error('the WebAssembly kernels do not load here');
const kernels = wasmKernels(memory);
const logits = new Float32Array(memory.buffer, 0, 2 * VOCAB);
let seed = 12345;
const random = () => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32;
for (let i = 0; i < VOCAB; i++) logits[i] = (random() - 0.5) * 4; // flat
for (let i = 0; i < VOCAB; i++) logits[VOCAB + i] = 2.5 * Math.log(-Math.log(random())) * -1 + (i < 20 ? 12 - i / 2 : 0); // peaked: a few clear winners
const scratches: Record<string, SampleScratch> = {
  'Math.exp': createSampleScratch(VOCAB),
  wasm: createSampleScratch(VOCAB, { expRow: kernels.expRow, probs: new Float32Array(memory.buffer, 8 * VOCAB, VOCAB) }),
};
const settings: Array<[string, number, number, number]> = [
  ['temperature 1 (default)', 1, 0, 1],
  ['temperature 0.7, top-p 0.9', 0.7, 0, 0.9],
  ['top-k 50', 1, 50, 1],
];

function microseconds(draw: (i: number) => number): number {
  const rounds: number[] = [];
  let sink = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const start = performance.now();
    for (let i = 0; i < DRAWS; i++) sink += draw(i);
    rounds.push(((performance.now() - start) * 1000) / DRAWS);
  }
  if (sink < 0) throw new Error('unreachable');
  return rounds.sort((a, b) => a - b)[ROUNDS >> 1];
}

process.stdout.write(`sampling one token from ${VOCAB} logits, µs (median of ${ROUNDS} rounds of ${DRAWS})\n`);
for (const [shape, offset] of [['flat', 0], ['peaked', VOCAB]] as const) {
  process.stdout.write(`${shape} logits: greedy ${microseconds(() => kernels.argmax(logits, offset, VOCAB)).toFixed(0)} (wasm) ${microseconds(() => argmax(logits, offset, VOCAB)).toFixed(0)} (js)\n`);
  for (const [name, temperature, topK, topP] of settings) {
    const cells = Object.entries(scratches).map(([kind, scratch]) => `${microseconds((i) => sampleToken(logits, offset, VOCAB, temperature, topK, topP, ((i * 0.618034) % 1), scratch)).toFixed(0)} (${kind})`);
    process.stdout.write(`  ${name}: ${cells.join('  ')}\n`);
  }
}
