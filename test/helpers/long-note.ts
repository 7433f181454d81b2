// A long note as an Obsidian vault has them: many sections, each with prose in English and
// Chinese, a list, a code block, a table and a callout. Used by the long-note test and bench/review.ts.

/** The note's Markdown body (no frontmatter), about `bytes` long (UTF-8): its title, an answer heading, then sections. */
export function longNoteBody(bytes: number): string {
  const parts = ['# 推理优化笔记：what limits decode throughput?\n\n## Answer\n\n'];
  let size = Buffer.byteLength(parts[0]);
  for (let i = 0; size < bytes; i++) {
    const section =
      `### Section ${i}: KV cache 与批处理 ${i}\n\n` +
      `Decode is memory-bound: each step reads every weight once for a handful of tokens, so a batch of ${(i % 64) + 1} sequences shares one read of 14 GB at 2 TB/s. 解码阶段受内存带宽限制：每一步都要读取全部权重，批处理让多个序列共享一次读取，延迟大约 ${i % 50} 毫秒。See [[KV cache]] and \`--max-num-seqs\`.\n\n` +
      `- 预填阶段 prefill is compute-bound (${i} FLOP/B)\n- decode 阶段 is bandwidth-bound\n- **paged attention** keeps blocks of 16 tokens\n\n` +
      '```python\n' + `def step(batch, kv):\n    # 每个步骤 ${i}\n    return sample(model(batch, kv), temperature=0.7)\n` + '```\n\n' +
      `| 指标 metric | value | 说明 |\n|---|---:|---|\n| TTFT | ${i} ms | 首个 token 的延迟 |\n| TPOT | ${(i % 30) + 5} ms | 每个输出 token 的时间 |\n\n` +
      `> [!tip] 提示\n> 更大的批次提高吞吐量 (latency grows with batch ${i}).\n\n`;
    parts.push(section);
    size += Buffer.byteLength(section);
  }
  return parts.join('');
}

/** The answer of longNoteBody: everything under its `## Answer`. */
export function longNoteAnswer(body: string): string {
  return body.slice(body.indexOf('## Answer\n\n') + '## Answer\n\n'.length).trim();
}
