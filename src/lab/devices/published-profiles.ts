// Profiles fitted to tables other people published, shipped with kb. They describe a machine
// and a serving loop nobody here measured, so each says where its numbers come from and that
// they were fitted to that table, not predicted from first principles.
import type { CostTerms } from '../../engine/index.ts';
import { type DeviceProfile, PROFILE_FORMAT } from './device-profile.ts';

export const SEED_003_DEVICE = 'seed-003-gpu';

/**
 * Seed 003's "before" table (its GPU and Python serving loop, gpt2, 256 requests of 4 prompt
 * and 64 output tokens, 16 admitted per step), fitted by bench/fit-seed-003.ts. What the fit
 * found, in words: each step costs ~17 ms whatever it holds (Python scheduling and launches),
 * a step that prefills pays ~24 ms more (an eager prefill pass outside the CUDA graph), and
 * tokens and sampled rows add nothing measurable (the GPU is nearly idle at this size). The
 * sim then matches TPOT and throughput within 1% but TTFT only within ~20%: the table's
 * TTFT p99 / p50 (1.26) says the first admissions waited ~300 ms for something no per-step
 * term expresses (a start-up delay), while kb's sim admits the first wave at once.
 */
const SEED_003_TERMS: CostTerms = {
  stepMs: 16.82,
  tokenMs: 0,
  attendedMs: 0,
  sampledMs: 0,
  prefillPassMs: 24.22,
};

/** bench/fit-seed-003.ts's result: |sim - table| on TTFT p50 (18.0%), TTFT p99 (22.1%), TPOT p50 (0.4%), throughput (0.4%). */
const SEED_003_TABLE_ERROR = { figures: 4, medianPct: 9.2, worstPct: 22.1 };

const GiB = 1024 ** 3;

/** Seed 003's profile with the given terms (the fitting bench tries candidates through this). */
export function seed003Profile(terms: CostTerms, tableError = SEED_003_TABLE_ERROR): DeviceProfile {
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
    // 12 GiB of GDDR6X; HF gpt2 loads as fp32 unless told otherwise; vLLM's usual 10% held back.
    kv: { memoryBytes: 12 * GiB, weightBytes: 124_439_808 * 4, reserveBytes: 1.2 * GiB, dtypeBytes: 4 },
  };
}

export function publishedProfiles(): DeviceProfile[] {
  return [seed003Profile(SEED_003_TERMS)];
}
