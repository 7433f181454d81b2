// Every pipeline dispatched once before the first step. It needs the pipelines and the bind
// groups built over them, so it lives apart from both (bind groups are built from pipelines).

import type { BindGroups } from './bind-groups.ts';
import type { MatmulKernels, Pipelines } from './pipelines.ts';

/**
 * Runs every pipeline once on an empty step (every kernel returns at once). lavapipe compiles
 * a pipeline at its first dispatch, seconds each on a loaded machine with a cold shader cache;
 * doing it here keeps that cost out of the first step's time (and so out of TTFT).
 */
export async function warmUp(device: GPUDevice, p: Pipelines, g: BindGroups, step: GPUBuffer): Promise<void> {
  device.queue.writeBuffer(step, 0, new Uint32Array(4));
  const encoder = device.createCommandEncoder({ label: 'warm-up' });
  const pass = encoder.beginComputePass();
  const run = (pipeline: GPUComputePipeline, group: GPUBindGroup): void => {
    pass.setPipeline(pipeline);
    pass.setBindGroup(0, group);
    pass.dispatchWorkgroups(1);
  };
  const layer = g.layers[0];
  p.embed.forEach((k, i) => run(k.pipeline, g.embed[i]));
  run(p.layerNorm.pipeline, layer.ln1);
  run(p.finalNorm.pipeline, g.finalNorm);
  run(p.attention.pipeline, layer.attention);
  run(p.argmax.pipeline, g.argmax);
  run(p.sample.pipeline, g.sample);
  const matmuls: [MatmulKernels, GPUBindGroup][] = [[p.qkv, layer.qkv], [p.proj, layer.proj], [p.fc, layer.fc], [p.fcProj, layer.fcProj]];
  p.lmHead.forEach((k, i) => matmuls.push([k, g.lmHead[i]]));
  for (const [k, group] of matmuls) {
    for (const pipeline of k.byRowBlock.values()) run(pipeline, group);
    if (k.tiled) run(k.tiled, group);
  }
  for (const [k, group] of [[p.qkv, layer.qkvNormed], [p.fc, layer.fcNormed]] as const) {
    if (k.normed && group) for (const pipeline of k.normed.byRowBlock.values()) run(pipeline, group);
  }
  pass.end();
  device.queue.submit([encoder.finish()]);
  await device.queue.onSubmittedWorkDone();
}
