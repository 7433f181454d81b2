// GPT-2 shapes: learned positions, pre-LayerNorm blocks, GELU (tanh) MLP of 4x width, LM head
// tied to the token embedding. A config is only shapes; weights live in weights.ts.

export interface ModelConfig {
  name: string;
  vocabSize: number;
  /** Longest sequence the position table covers. */
  nCtx: number;
  nEmbd: number;
  nLayer: number;
  nHead: number;
  layerNormEps: number;
}

const GPT2_VOCAB = 50257;
const GPT2_EPS = 1e-5;

// gpt2-tiny keeps the real vocabulary so the real tokenizer works, which makes the LM head
// (vocab x width) its biggest matrix: at width 128 it is 6.4M weights, ~13 MFLOP per sampled
// token, and the 4 layers add only ~0.8M weights (~1.6 MFLOP per token). A lab burst of 256
// short requests is then a few hundred GFLOP at most: seconds at the ~5 GFLOP/s two cores give
// in plain JS. Width 256 would quadruple the layers and double the head for no teaching gain.
export const NAMED_CONFIGS: Readonly<Record<string, ModelConfig>> = {
  'gpt2-tiny': { name: 'gpt2-tiny', vocabSize: GPT2_VOCAB, nCtx: 1024, nEmbd: 128, nLayer: 4, nHead: 4, layerNormEps: GPT2_EPS },
  gpt2: { name: 'gpt2', vocabSize: GPT2_VOCAB, nCtx: 1024, nEmbd: 768, nLayer: 12, nHead: 12, layerNormEps: GPT2_EPS },
  'gpt2-medium': { name: 'gpt2-medium', vocabSize: GPT2_VOCAB, nCtx: 1024, nEmbd: 1024, nLayer: 24, nHead: 16, layerNormEps: GPT2_EPS },
};

export function namedConfig(name: string): ModelConfig {
  const config = NAMED_CONFIGS[name];
  if (!config) {
    throw new Error(`unknown model "${name}"; known models: ${Object.keys(NAMED_CONFIGS).join(', ')}`);
  }
  return { ...config };
}

/**
 * Upper bounds on each shape: far above any GPT-2 (the largest has 48 layers, width 1600), low
 * enough that a typo such as n_layer 1000000 is refused before anything is sized from it.
 */
export const CONFIG_LIMITS = { vocabSize: 1 << 20, nCtx: 1 << 20, nEmbd: 1 << 16, nLayer: 1024, nHead: 1024 } as const;

/** Throws a one-line error naming the first bad field; returns the config for chaining. */
export function validateConfig(config: ModelConfig): ModelConfig {
  const fields = ['vocabSize', 'nCtx', 'nEmbd', 'nLayer', 'nHead'] as const;
  for (const field of fields) {
    const value = config[field];
    if (!Number.isInteger(value) || value < 1) {
      throw new Error(`model config "${config.name}": ${field} must be a positive integer, got ${String(value)}`);
    }
    if (value > CONFIG_LIMITS[field]) {
      throw new Error(`model config "${config.name}": ${field} ${value} is more than ${CONFIG_LIMITS[field]}`);
    }
  }
  if (config.nEmbd % config.nHead !== 0) {
    throw new Error(`model config "${config.name}": nEmbd (${config.nEmbd}) must be a multiple of nHead (${config.nHead})`);
  }
  if (!(config.layerNormEps > 0 && config.layerNormEps < 1)) {
    throw new Error(`model config "${config.name}": layerNormEps must be in (0, 1), got ${String(config.layerNormEps)}`);
  }
  return config;
}

/** Our field -> its key in a Hugging Face config.json (for errors in the user's own words). */
const HF_KEYS = { vocabSize: 'vocab_size', nCtx: 'n_positions', nEmbd: 'n_embd', nLayer: 'n_layer', nHead: 'n_head' } as const;

/** Parses a Hugging Face GPT-2 `config.json` (already JSON.parse'd, or its text). */
export function loadHfConfig(json: unknown, name = 'hf-gpt2'): ModelConfig {
  const raw: unknown = typeof json === 'string' ? JSON.parse(json) : json;
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new Error('config.json: expected a JSON object');
  }
  const obj = raw as Record<string, unknown>;
  const field = (key: string) => (Object.hasOwn(obj, key) ? obj[key] : undefined);
  const modelType = field('model_type');
  if (modelType !== undefined && modelType !== 'gpt2') {
    throw new Error(`config.json: model_type is "${String(modelType)}", only "gpt2" is supported`);
  }
  const activation = field('activation_function');
  if (activation !== undefined && activation !== 'gelu_new' && activation !== 'gelu_pytorch_tanh') {
    throw new Error(`config.json: activation_function "${String(activation)}" is not supported (GPT-2 uses gelu_new)`);
  }
  const int = (of: keyof typeof HF_KEYS, fallbackKey?: string): number => {
    const key = HF_KEYS[of];
    const value = field(key) ?? (fallbackKey ? field(fallbackKey) : undefined);
    if (value === undefined) throw new Error(`config.json: missing numeric field "${key}"`);
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > CONFIG_LIMITS[of]) {
      throw new Error(`config.json: ${key} must be a whole number from 1 to ${CONFIG_LIMITS[of]}, got ${JSON.stringify(value)}`);
    }
    return value;
  };
  const eps = field('layer_norm_epsilon');
  if (eps !== undefined && !(typeof eps === 'number' && eps > 0 && eps < 1)) {
    throw new Error(`config.json: layer_norm_epsilon must be a number in (0, 1), got ${JSON.stringify(eps)}`);
  }
  const config: ModelConfig = {
    name,
    vocabSize: int('vocabSize'),
    nCtx: int('nCtx', 'n_ctx'),
    nEmbd: int('nEmbd'),
    nLayer: int('nLayer'),
    nHead: int('nHead'),
    layerNormEps: typeof eps === 'number' ? eps : GPT2_EPS,
  };
  if (config.nEmbd % config.nHead !== 0) {
    throw new Error(`config.json: n_embd ${config.nEmbd} is not a multiple of n_head ${config.nHead}`);
  }
  return validateConfig(config);
}

/** Number of weights, tied head counted once. */
export function parameterCount(config: ModelConfig): number {
  const c = config.nEmbd;
  const perLayer = 2 * c + (c * 3 * c + 3 * c) + (c * c + c) + 2 * c + (c * 4 * c + 4 * c) + (4 * c * c + c);
  return config.vocabSize * c + config.nCtx * c + config.nLayer * perLayer + 2 * c;
}
