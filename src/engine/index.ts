// The engine's one door: code outside src/engine imports the engine from this file only, and
// this file exports exactly what that code uses. (The worker threads' entry files are loaded
// by path, not imported.)

// An engine: create it, submit requests, stream their tokens, read its statistics.
export { connectEngine, createEngine, resolveModelConfig, type Engine } from './engine.ts';
export { MAX_SHARED_THREADS } from './host/engine-clients.ts';
export type { RequestHandle } from './request-stream.ts';
// Where a worker thread's code is (kb serve's API server threads start from it as the engine's do).
export { threadEntry } from './thread-entry.ts';
export type { EngineStats } from './metrics/step-stats.ts';
export type { KernelProfile } from './backend/webgpu/profile.ts';
export { kernelProfileLines } from './kernel-profile-text.ts';

// Its options, their defaults and ranges (refused before anything is allocated).
export { backendNames, DEFAULT_BLOCK_SIZE, DEFAULT_DEVICE, engineOptionRanges, type BackendName, type EngineOptions } from './engine-options.ts';
export { defaultSchedulerOptions, kvReservations, schedulerOptionRanges, schedulingPolicies, type KvReservation } from './core/scheduler-options.ts';
export { parseBackendKind, type BackendKind } from './backend/backend-kind.ts';
// Why webgpu surely cannot run here (no Vulkan driver), asked without loading Dawn; null when it may.
export { webgpuUnavailable } from './backend/webgpu/vulkan-loader.ts';

// Models and the tokenizer.
export { NAMED_CONFIGS, type ModelConfig } from './model/model-config.ts';
export { gpt2Tokenizer, type Tokenizer } from './model/tokenizer.ts';

// The sim: the GPUs it models, its step-cost terms, and the step shapes and traces they are fitted on.
export { deviceNames, namedDevices, type DeviceSpec } from './backend/sim/gpus.ts';
export { COST_TERMS, predictStepMs, type CostTerm, type CostTerms } from './backend/sim/cost-terms.ts';
export { SPREAD_POINTS, sizedSpreads, spreadAt, spreadQuantiles, type SizedSpread } from './backend/sim/step-spread.ts';
export { weightCount } from './backend/sim/cost-model.ts';
export { DECODE_SIZE_RANGES, decodeSizeLabel, stepGroup, stepKind, type StepKind, type StepShape } from './backend/sim/step-shape.ts';
export { stepTimes, type TracedStep } from './metrics/step-trace.ts';

// Metrics, one definition everywhere.
export { requestMetrics, type RequestTimeline } from './metrics/timeline.ts';
export { percentile, percentiles, type Percentiles } from './metrics/percentile.ts';

// Benchmarks: workloads, the runner and its report.
export { generateWorkload, type LengthSpec, type WorkloadRequest, type WorkloadSpec } from './bench/workload.ts';
export { BenchmarkAborted, runBenchmark, type BenchmarkOptions, type BenchmarkReport, type UsageSample } from './bench/runner.ts';
export { formatReport } from './bench/format-report.ts';

// The cpu backend's matmul kernel, plain and SIMD (the lab's machine probe times it).
export { matmul, type MatmulFn } from './backend/cpu/matmul.ts';
export { wasmKernels, wasmKernelsSupported } from './backend/cpu/wasm/load-kernels.ts';
export { wasm } from './backend/cpu/wasm/webassembly.ts';
