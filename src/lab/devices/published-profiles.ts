// Profiles fitted to tables other people published, shipped with kb. They describe a machine
// and a serving loop nobody here measured, so each says where its numbers come from and that
// they were fitted to that table, not predicted from first principles.
import type { CostTerms } from '../../engine/index.ts';
import { type DeviceProfile, PROFILE_FORMAT } from './device-profile.ts';

export const SEED_003_DEVICE = 'seed-003-gpu';

/**
 * Seed 003's "before" table (its GPU and Python serving loop, gpt2, 256 requests of 4 prompt
 * and 64 output tokens, 16 admitted per step), fitted by bench/fit-seed-003.ts. What the fit
 * found, in words: a step costs ~0.08 ms per sequence it samples (per-sequence work of the
 * Python loop: 21 ms a step with all 256 running, 1.3 ms with the first 16) and next to
 * nothing else (the GPU is nearly idle at this size, decode runs as CUDA graphs), and every
 * request reached the loop ~370 ms after it was submitted. That delay is what the table's
 * TTFT p99 / p50 of 1.26 shows: the first wave was admitted late, the fifteen after it 14 ms
 * apart. Per-step terms alone could not fit it (TTFT off by 16-25%).
 */
const SEED_003_TERMS: CostTerms = {
  stepMs: 0.001146,
  tokenMs: 0,
  attendedMs: 0,
  sampledMs: 0.08228,
  prefillPassMs: 0.002383,
};

/** ms from submit until seed 003's serving loop saw a request, fitted with the terms. */
const SEED_003_SUBMIT_MS = 370.2;

/** bench/fit-seed-003.ts's result: |sim - table| on TTFT p50 (1.7%), TTFT p99 (2.4%), TPOT p50 (0.4%), throughput (0.3%). */
const SEED_003_TABLE_ERROR = { figures: 4, medianPct: 1.1, worstPct: 2.4 };

const GiB = 1024 ** 3;

/** Seed 003's profile with the given terms (the fitting bench tries candidates through this). */
export function seed003Profile(terms: CostTerms, submitMs = SEED_003_SUBMIT_MS, tableError = SEED_003_TABLE_ERROR): DeviceProfile {
  return {
    format: PROFILE_FORMAT,
    name: SEED_003_DEVICE,
    model: 'gpt2',
    source: {
      kind: 'published',
      table: 'seed 003, "before" table (TTFT p50/p99, TPOT p50, throughput)',
      hardware: 'a CUDA GPU (taken to be a 12 GiB RTX 4070: the table itself says only "cuda") under a Python serving loop with CUDA graphs for decode',
      note: 'fitted to that table, not predicted: it says what that machine and loop cost per step, and lets you ask what other settings would have done there',
      tableError,
    },
    terms,
    submitMs,
    // 12 GiB of GDDR6X; HF gpt2 loads as fp32 unless told otherwise; vLLM's usual 10% held back.
    kv: { memoryBytes: 12 * GiB, weightBytes: 124_439_808 * 4, reserveBytes: 1.2 * GiB, dtypeBytes: 4 },
  };
}

export function publishedProfiles(): DeviceProfile[] {
  return [seed003Profile(SEED_003_TERMS)];
}
