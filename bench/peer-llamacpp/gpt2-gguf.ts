// kb's GPT-2 (a config and its weights) as the GGUF file llama.cpp's "gpt2" architecture loads:
// the hyperparameter keys, GPT-2's BPE vocabulary, and the tensors under llama.cpp's names
// (src/models/gpt2.cpp and gguf-py/gguf/constants.py), all F32.
//
// Layouts: kb keeps Hugging Face's Conv1D weights as row-major [in, out]; llama.cpp wants the
// nn.Linear layout, row-major [out, in], declared as ggml dims {in, out} (fastest first), so
// every linear weight is transposed here, as llama.cpp's convert_hf_to_gguf.py does for GPT-2.
// Embeddings are row-major [rows, C] on both sides and go in as they are (dims {C, rows}).
// The LM head is tied: no output.weight, so llama.cpp reuses token_embd.weight, as kb does.

import type { ModelConfig } from '../../src/engine/model/model-config.ts';
import type { Weights } from '../../src/engine/model/weights.ts';
import type { GgufTensor, GgufValue } from './gguf-writer.ts';
import { GPT2_EOS_ID, gpt2Vocab } from './gpt2-vocab.ts';

/** llama.cpp's file type ALL_F32. */
const LLAMA_FTYPE_ALL_F32 = 0;

export function gpt2Metadata(config: ModelConfig): Map<string, GgufValue> {
  const vocab = gpt2Vocab();
  if (vocab.tokens.length !== config.vocabSize) {
    throw new Error(`gpt2 gguf: the GPT-2 vocabulary has ${vocab.tokens.length} tokens, the model ${config.vocabSize}`);
  }
  const u32 = (value: number): GgufValue => ({ type: 'uint32', value });
  return new Map<string, GgufValue>([
    ['general.architecture', { type: 'string', value: 'gpt2' }],
    ['general.name', { type: 'string', value: `kb ${config.name} (synthetic weights)` }],
    ['general.file_type', u32(LLAMA_FTYPE_ALL_F32)],
    ['gpt2.context_length', u32(config.nCtx)],
    ['gpt2.embedding_length', u32(config.nEmbd)],
    ['gpt2.feed_forward_length', u32(4 * config.nEmbd)],
    ['gpt2.block_count', u32(config.nLayer)],
    ['gpt2.attention.head_count', u32(config.nHead)],
    ['gpt2.attention.layer_norm_epsilon', { type: 'float32', value: config.layerNormEps }],
    ['tokenizer.ggml.model', { type: 'string', value: 'gpt2' }],
    // The pre-tokenizer regex GPT-2 splits text with before BPE.
    ['tokenizer.ggml.pre', { type: 'string', value: 'gpt-2' }],
    ['tokenizer.ggml.tokens', { type: 'string[]', value: vocab.tokens }],
    ['tokenizer.ggml.token_type', { type: 'int32[]', value: vocab.tokenTypes }],
    ['tokenizer.ggml.merges', { type: 'string[]', value: vocab.merges }],
    ['tokenizer.ggml.bos_token_id', u32(GPT2_EOS_ID)],
    ['tokenizer.ggml.eos_token_id', u32(GPT2_EOS_ID)],
    ['tokenizer.ggml.add_bos_token', { type: 'bool', value: false }],
  ]);
}

/** Row-major [rows, cols] -> row-major [cols, rows]. */
export function transpose(data: Float32Array, rows: number, cols: number): Float32Array {
  const out = new Float32Array(data.length);
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) out[c * rows + r] = data[r * cols + c];
  }
  return out;
}

/** The model's tensors under llama.cpp's gpt2 names, in ggml dims, F32. */
export function gpt2Tensors(config: ModelConfig, weights: Weights): GgufTensor[] {
  const c = config.nEmbd;
  const vector = (name: string, data: Float32Array): GgufTensor => ({ name, dims: [data.length], data: () => data });
  /** A Conv1D weight [inDim, outDim] as a Linear weight, dims {inDim, outDim}. */
  const linear = (name: string, data: Float32Array, inDim: number, outDim: number): GgufTensor => ({
    name,
    dims: [inDim, outDim],
    data: () => transpose(data, inDim, outDim),
  });
  const tensors: GgufTensor[] = [
    { name: 'token_embd.weight', dims: [c, config.vocabSize], data: () => weights.wte },
    { name: 'position_embd.weight', dims: [c, config.nCtx], data: () => weights.wpe },
    vector('output_norm.weight', weights.lnfGamma),
    vector('output_norm.bias', weights.lnfBeta),
  ];
  weights.layers.forEach((layer, i) => {
    const blk = `blk.${i}.`;
    tensors.push(
      vector(`${blk}attn_norm.weight`, layer.ln1Gamma),
      vector(`${blk}attn_norm.bias`, layer.ln1Beta),
      linear(`${blk}attn_qkv.weight`, layer.attnW, c, 3 * c),
      vector(`${blk}attn_qkv.bias`, layer.attnB),
      linear(`${blk}attn_output.weight`, layer.attnProjW, c, c),
      vector(`${blk}attn_output.bias`, layer.attnProjB),
      vector(`${blk}ffn_norm.weight`, layer.ln2Gamma),
      vector(`${blk}ffn_norm.bias`, layer.ln2Beta),
      linear(`${blk}ffn_up.weight`, layer.fcW, c, 4 * c),
      vector(`${blk}ffn_up.bias`, layer.fcB),
      linear(`${blk}ffn_down.weight`, layer.fcProjW, 4 * c, c),
      vector(`${blk}ffn_down.bias`, layer.fcProjB),
    );
  });
  return tensors;
}
