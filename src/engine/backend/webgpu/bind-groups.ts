// Bind groups for every dispatch of a step, built once per buffer set (at start, and again
// only when the activation buffers grow) and reused by every step.

import type { Activations, KvPool } from './gpu-buffers.ts';
import { matrixResource, type GpuMatrix, type GpuWeights } from './gpu-weights.ts';
import type { Pipelines } from './pipelines.ts';

export interface LayerBindGroups {
  ln1: GPUBindGroup;
  qkv: GPUBindGroup;
  attention: GPUBindGroup;
  proj: GPUBindGroup;
  ln2: GPUBindGroup;
  fc: GPUBindGroup;
  fcProj: GPUBindGroup;
  /** The QKV and MLP projections with their LayerNorm fused in, reading the residual stream (GPUs). */
  qkvNormed?: GPUBindGroup;
  fcNormed?: GPUBindGroup;
}

export interface BindGroups {
  embed: GPUBindGroup[];
  layers: LayerBindGroups[];
  finalNorm: GPUBindGroup;
  lmHead: GPUBindGroup[];
  argmax: GPUBindGroup;
  sample: GPUBindGroup;
}

export function buildBindGroups(device: GPUDevice, p: Pipelines, w: GpuWeights, a: Activations, pool: KvPool): BindGroups {
  const group = (layout: GPUBindGroupLayout, resources: (GPUBuffer | { matrix: GpuMatrix })[]): GPUBindGroup =>
    device.createBindGroup({ layout, entries: resources.map((r, binding) => ({ binding, resource: 'matrix' in r ? matrixResource(r.matrix) : { buffer: r } })) });
  const layers = w.layers.map((lw, l) => ({
    ln1: group(p.layerNorm.layout, [a.step, a.x, lw.ln1Gamma, lw.ln1Beta, a.xn]),
    qkv: group(p.qkv.layout, [a.step, a.xn, { matrix: lw.qkvW }, a.qkv, lw.qkvB, a.slotMapping, pool.k[l], pool.v[l]]),
    attention: group(p.attention.layout, [a.step, a.qkv, pool.k[l], pool.v[l], a.positions, a.tokenSeq, a.blockTables, a.attn]),
    proj: group(p.proj.layout, [a.step, a.attn, { matrix: lw.projW }, a.x, lw.projB]),
    ln2: group(p.layerNorm.layout, [a.step, a.x, lw.ln2Gamma, lw.ln2Beta, a.xn]),
    fc: group(p.fc.layout, [a.step, a.xn, { matrix: lw.fcW }, a.hidden, lw.fcB]),
    fcProj: group(p.fcProj.layout, [a.step, a.hidden, { matrix: lw.fcProjW }, a.x, lw.fcProjB]),
    ...(p.qkv.normed ? { qkvNormed: group(p.qkv.normed.layout, [a.step, a.x, { matrix: lw.qkvW }, a.qkv, lw.qkvB, a.slotMapping, pool.k[l], pool.v[l], lw.ln1Gamma, lw.ln1Beta]) } : {}),
    ...(p.fc.normed ? { fcNormed: group(p.fc.normed.layout, [a.step, a.x, { matrix: lw.fcW }, a.hidden, lw.fcB, lw.ln2Gamma, lw.ln2Beta]) } : {}),
  }));
  return {
    embed: w.wteChunks.map((chunk, i) => group(p.embed[i].layout, [a.step, a.tokenIds, a.positions, { matrix: chunk.table }, w.wpe, a.x])),
    layers,
    finalNorm: group(p.finalNorm.layout, [a.step, a.x, w.lnfGamma, w.lnfBeta, a.final, a.queryStart, a.sampleSeqs]),
    lmHead: w.wteChunks.map((chunk, i) => group(p.lmHead[i].layout, [a.step, a.final, { matrix: chunk.table }, a.logits])),
    argmax: group(p.argmax.layout, [a.step, a.logits, a.argmaxPartials]),
    sample: group(p.sample.layout, [a.step, a.logits, a.rowParams, a.sampled, a.argmaxPartials]),
  };
}
