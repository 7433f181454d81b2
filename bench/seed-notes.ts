// Notes in the style of seed 000 (Chinese titles, frontmatter, code blocks, a table), for the
// benches that need a big knowledge base: bench/scan.ts, bench/doctor.ts.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const topics = ['vllm', 'kv-cache', 'scheduling', 'metrics', 'attention', 'quantization', 'batching', 'serving', 'gpu', 'decoding'];
const subjects = ['TTFT', 'TPOT', 'PagedAttention', '连续批处理', '前缀缓存', 'Chunked Prefill', 'KV Cache', '吞吐量', 'ITL', 'Goodput'];
const questions = ['是什么？', '如何优化？', '在高并发下有什么变化？', '和延迟是什么关系？', '为什么重要？'];

/** `links`: related outlines as relative links (`- ../kv-cache/00012.md`), as the bundled notes list them, instead of none. */
export function noteText(i: number, links = false): string {
  const subject = subjects[i % subjects.length];
  const question = questions[Math.floor(i / subjects.length) % questions.length];
  const title = `${subject}${question}（第 ${i} 题）`;
  return `---
created: '2025-10-19'
last_reviewed: ${i % 3 === 0 ? "'2025-10-20'" : 'null'}
next_review: '2025-10-${String(21 + (i % 9)).padStart(2, '0')}'
review_count: ${i % 3 === 0 ? 2 : 0}
difficulty: ${['easy', 'medium', 'hard'][i % 3]}
mastery_level: ${((i % 10) / 10).toFixed(1)}
tags:
- ${topics[i % topics.length]}
- ${topics[i % topics.length]}/${title}.md
related_outlines:${links ? relatedLinks(i) : ' []'}
---
# ${title}

## 面试标准答案（精简版）

**${subject} 的核心在于把预填充和解码分开看待：前者受算力限制，后者受显存带宽限制。**

## 详细技术解析

### 1. 定义

\`\`\`
指标: ${subject}
计算公式: 总时间 / 输出 token 数
典型范围: 20ms - 200ms
\`\`\`

### 2. 测量

\`\`\`python
def measure(requests):
    start = time.perf_counter()
    for request in requests:
        request.wait_first_token()
    return (time.perf_counter() - start) / len(requests)
\`\`\`

| 阶段 | 时间 | 占比 |
|------|------|------|
| 排队 | 120 ms | 60% |
| 预填充 | 80 ms | 40% |

- 批大小越大，吞吐越高，但单请求延迟上升。
- 使用分块预填充可以平衡 TTFT 与 ITL。
`;
}

function relatedLinks(i: number): string {
  const other = (k: number) => `${String(k).padStart(5, '0')}.md`;
  return `\n- ./${other(i + 10)}\n- ../${topics[(i + 1) % topics.length]}/${other(i + 1)}\n- ../${topics[(i + 3) % topics.length]}/${other(i + 3)}`;
}

/** Writes `noteCount` notes under ROOT/notes/<topic>/ (and empty cards/ and lab/ folders); returns their paths. */
export function generateNotes(root: string, noteCount: number, options: { links?: boolean } = {}): string[] {
  const paths: string[] = [];
  for (const topic of topics) mkdirSync(join(root, 'notes', topic), { recursive: true });
  mkdirSync(join(root, 'cards'));
  mkdirSync(join(root, 'lab'));
  for (let i = 0; i < noteCount; i++) {
    const path = join(root, 'notes', topics[i % topics.length], `${String(i).padStart(5, '0')}.md`);
    writeFileSync(path, noteText(i, options.links));
    paths.push(path);
  }
  return paths;
}
