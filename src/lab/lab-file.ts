// A lab file, lab/<name>.md: YAML frontmatter holding the run and its `expect:` checks,
// then the exercise in Markdown. Every problem is reported with the file, the line and
// the key; unknown keys are errors (a typo must not silently fall back to a default).
//
//   ---
//   title: "TTFT breakdown: queue wait vs prefill"      # required
//   summary: one sentence for `kb lab list`              # required
//   model: gpt2-tiny          # top-level settings: model, backend, device, warmup, repeats
//   backend: cpu
//   engine: { prefillMaxBatch: 16, maxNumSeqs: 256 }    # engine.* settings
//   workload: { requests: 256, promptTokens: 8, outputTokens: 4..32, arrival: burst }
//   slo: { ttftMs: 700 }                                # for goodput
//   sweep: { key: engine.chunkSize, values: [0, 64, 256] }   # optional: one run per value
//   # sweep: { key: workload.rate, values: [0.25, 1, 4], relativeTo: capacity }: rates as
//   #   multiples of the capacity measured first (a burst of the same requests), so the
//   #   sweep straddles the knee on a fast machine and on a slow one alike
//   chart: { kind: line, y: [ttft.p95], logX: true, fit: power, knee: true }   # see below
//   presets:                                             # optional: named sets of settings
//     seed-003: { say: "the seed's own run", set: { model: gpt2, engine.prefillMaxBatch: 16 } }
//   #   `kb lab <name> --preset seed-003` applies them before any --set
//   expect:                                              # checks, see checks.ts
//     - metric: queue_wait.p99 / ttft.p99
//       op: ">="
//       value: 0.8
//       say: queue wait is at least 80% of TTFT p99
//   ---
//   The exercise (Markdown): what to run, what to look at, what to change, questions.
//
// The chart (optional) draws the result: `kind: bars` a group of bars per metric `y`, one bar
// per point; `kind: line` each `y` metric against the swept value (a numeric sweep), with
// `fit: power` (y = a x^k; the fit.* metrics), `slo: { scale, of }` (a limit line at scale x
// the metric `of` at the first point; slo.* metrics), `knee: true` (knee.* metrics) and
// `roofline: true` (bandwidth and FLOP/s probed in the run; roofline.* and probe.* metrics);
// `kind: time` each `y` series over the time of a run (usage.* of metrics.ts, e.g.
// usage.utilization), one line per point of the sweep.
//
// Every setting, its type and range: settings.ts (also `kb lab --help`). Anything not set
// takes the default of settings.ts, which follows the engine's own defaults.
import { LineCounter, isMap, isPair, isScalar, isSeq, parseDocument, type Node as YamlNode } from 'yaml';
// zod/mini, as for kb.json (src/kb/config.ts): the classic API would put the whole of zod,
// every locale included, into the start-up bundle of every command.
import * as z from 'zod/mini';
import en from 'zod/v4/locales/en.js';
import { CheckSyntaxError, checkOps, parseCheck, type CheckSpec } from './checks.ts';
import { isLabMetric, isSweepMetric, timeSeriesCatalogue, timeSeriesInfo } from './metrics.ts';
import {
  applyOverrides,
  checkValue,
  crossCheck,
  defaultSettings,
  formatSettingValue,
  settingSpec,
  settingSpecs,
  type LabSettings,
  type SettingOverride,
  type SettingSpec,
  type SettingValue,
} from './lab-settings.ts';

export interface LabSweep {
  key: string;
  values: SettingValue[];
  /** How each point is named in output and in `name@label` checks: the value as text. */
  labels: string[];
  /** 'capacity': each value is a multiple of the requests/s a burst of the workload achieves. */
  relativeTo: 'capacity' | null;
}

export interface LabChart {
  kind: 'bars' | 'line' | 'time';
  /** Point metrics drawn: one bar group, or one line, each. */
  y: string[];
  logX: boolean;
  fit: 'power' | null;
  slo: { scale: number; of: string } | null;
  knee: boolean;
  roofline: boolean;
}

/** A named set of settings a lab ships (`--preset NAME`), e.g. a published run's. */
export interface LabPreset {
  name: string;
  say: string;
  overrides: SettingOverride[];
}

export interface Lab {
  name: string;
  /** Path relative to the knowledge base root, e.g. lab/ttft-breakdown.md. */
  file: string;
  title: string;
  summary: string;
  /** Defaults overlaid with what the file sets. */
  settings: LabSettings;
  /** What the file sets, as overrides of the defaults (shown by `kb lab list --json`). */
  fileSettings: SettingOverride[];
  sweep: LabSweep | null;
  presets: LabPreset[];
  expect: CheckSpec[];
  chart: LabChart | null;
  /** The exercise, Markdown. */
  body: string;
  /** 1-based line where the body starts in the file. */
  bodyLine: number;
}

export class LabFileError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(problems.join('\n'));
    this.name = 'LabFileError';
    this.problems = problems;
  }
}

// Mini carries no messages of its own (set here too: a lab can be read without kb.json's module).
z.config(en());


/** A zod schema for one registered setting: the registry's range check, normalising lengths. */
function settingSchema(spec: SettingSpec) {
  return z.pipe(
    z.unknown(),
    z.transform((value, ctx) => {
      const checked = checkValue(spec, value);
      if (checked.ok) return checked.value;
      ctx.issues.push({ code: 'custom', message: checked.problem, input: value });
      return z.NEVER;
    }),
  );
}

function groupSchema(group: 'engine' | 'workload' | 'slo') {
  const shape: Record<string, z.ZodMiniOptional<ReturnType<typeof settingSchema>>> = {};
  for (const spec of settingSpecs) {
    if (spec.key.startsWith(`${group}.`)) shape[spec.key.slice(group.length + 1)] = z.optional(settingSchema(spec));
  }
  return z.optional(z.strictObject(shape));
}

const nonEmptyString = () => z.string().check(z.minLength(1));

const expectSchema = z.strictObject({
  metric: nonEmptyString(),
  op: z.enum(checkOps, { error: `must be one of ${checkOps.map((op) => `"${op}"`).join(', ')}` }),
  value: z.number(),
  say: nonEmptyString(),
});

const frontmatterSchema = z.strictObject({
  title: nonEmptyString(),
  summary: nonEmptyString(),
  model: z.optional(settingSchema(settingSpec('model')!)),
  backend: z.optional(settingSchema(settingSpec('backend')!)),
  warmup: z.optional(settingSchema(settingSpec('warmup')!)),
  repeats: z.optional(settingSchema(settingSpec('repeats')!)),
  engine: groupSchema('engine'),
  workload: groupSchema('workload'),
  slo: groupSchema('slo'),
  sweep: z.optional(
    z.strictObject({ key: z.string(), values: z.array(z.unknown()).check(z.minLength(1)), relativeTo: z.optional(z.enum(['capacity'])) }),
  ),
  chart: z.optional(
    z.strictObject({
      kind: z.enum(['bars', 'line', 'time']),
      y: z.array(z.string()).check(z.minLength(1), z.maxLength(4)),
      logX: z._default(z.boolean(), false),
      fit: z.optional(z.enum(['power'])),
      slo: z.optional(z.strictObject({ scale: z.number().check(z.positive()), of: z.string() })),
      knee: z._default(z.boolean(), false),
      roofline: z._default(z.boolean(), false),
    }),
  ),
  presets: z.optional(z.record(z.string().check(z.regex(/^[a-z0-9][a-z0-9-]*$/)), z.strictObject({ say: nonEmptyString(), set: z.record(z.string(), z.unknown()) }))),
  expect: z._default(z.array(expectSchema), []),
});

/** Splits `---\n yaml \n---\n body`; the frontmatter must be plain YAML (no `---js`). */
function splitFrontmatter(text: string, file: string): { yaml: string; yamlLine: number; body: string; bodyLine: number } {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  if (lines[0]?.trim() !== '---') {
    const what = lines[0]?.startsWith('---') ? `"${lines[0].trim()}" frontmatter is not allowed (plain YAML only)` : 'no frontmatter (the file must start with ---)';
    throw new LabFileError([`${file}:1: ${what}`]);
  }
  const end = lines.findIndex((line, i) => i > 0 && (line.trim() === '---' || line.trim() === '...'));
  if (end < 0) throw new LabFileError([`${file}:1: frontmatter is not closed (no second ---)`]);
  const rest = lines.slice(end + 1);
  const blank = rest.findIndex((line) => line.trim() !== '');
  return { yaml: lines.slice(1, end).join('\n'), yamlLine: 2, body: rest.join('\n').trim(), bodyLine: end + 2 + Math.max(0, blank) };
}

/** The line of the key at `path` in the YAML (the key itself, so "unknown key" points at it). */
function lineOf(doc: ReturnType<typeof parseDocument>, counter: LineCounter, path: PropertyKey[], firstLine: number): number | null {
  let node: unknown = doc.contents;
  let offset: number | null = null;
  for (const segment of path) {
    if (isMap(node)) {
      const pair = node.items.find((item) => isPair(item) && isScalar(item.key) && String(item.key.value) === String(segment));
      if (!pair) break;
      offset = (pair.key as YamlNode).range?.[0] ?? offset;
      node = pair.value;
    } else if (isSeq(node) && typeof segment === 'number') {
      const item = node.items[segment] as YamlNode | undefined;
      if (!item) break;
      offset = item.range?.[0] ?? offset;
      node = item;
    } else break;
  }
  return offset === null ? null : counter.linePos(offset).line + firstLine - 1;
}

/** Parses and validates a lab file's text; throws LabFileError listing every problem. */
export function parseLab(text: string, name: string, file = `lab/${name}.md`): Lab {
  const { yaml, yamlLine, body, bodyLine } = splitFrontmatter(text, file);
  const counter = new LineCounter();
  const doc = parseDocument(yaml, { lineCounter: counter, uniqueKeys: true, prettyErrors: false });
  if (doc.errors.length > 0) {
    throw new LabFileError(doc.errors.map((error) => `${file}:${counter.linePos(error.pos[0]).line + yamlLine - 1}: YAML: ${error.message.split('\n')[0]}`));
  }
  const where = (path: PropertyKey[]) => {
    const line = lineOf(doc, counter, path, yamlLine);
    return line === null ? file : `${file}:${line}`;
  };
  const data = doc.toJS({ maxAliasCount: 50 }) as unknown;
  if (data === null || typeof data !== 'object' || Array.isArray(data)) throw new LabFileError([`${file}:${yamlLine}: the frontmatter must be a YAML mapping`]);

  const parsed = frontmatterSchema.safeParse(data);
  if (!parsed.success) {
    throw new LabFileError(
      parsed.error.issues.map((issue) => {
        if (issue.code === 'unrecognized_keys') {
          const key = issue.keys[0];
          const path = [...issue.path, key];
          const group = issue.path.length === 1 ? String(issue.path[0]) : null;
          const valid =
            group === 'engine' || group === 'workload' || group === 'slo'
              ? settingSpecs.filter((spec) => spec.key.startsWith(`${group}.`)).map((spec) => spec.key.slice(group.length + 1))
              : issue.path.length === 0
                ? Object.keys(frontmatterSchema.shape)
                : null;
          return `${where(path)}: ${path.join('.')}: unknown key${valid ? `; valid keys here: ${valid.join(', ')}` : ''}`;
        }
        const message = issue.code === 'invalid_type' && issue.input === undefined ? 'is required' : issue.message;
        return `${where(issue.path)}: ${issue.path.join('.') || '(frontmatter)'}: ${message}`;
      }),
    );
  }
  const front = parsed.data;
  const problems: string[] = [];

  const fileSettings: SettingOverride[] = [];
  for (const spec of settingSpecs) {
    const [head, tail] = spec.key.split('.');
    const record = front as Record<string, unknown>;
    const value = tail === undefined ? record[head] : (record[head] as Record<string, unknown> | undefined)?.[tail];
    if (value !== undefined) fileSettings.push({ key: spec.key, value: value as SettingValue });
  }
  const settings = applyOverrides(defaultSettings, fileSettings);
  for (const problem of crossCheck(settings)) problems.push(`${file}: ${problem}`);

  const presets: LabPreset[] = [];
  for (const [presetName, preset] of Object.entries(front.presets ?? {})) {
    const overrides: SettingOverride[] = [];
    for (const [key, raw] of Object.entries(preset.set)) {
      const spec = settingSpec(key);
      const path = ['presets', presetName, 'set', key];
      if (!spec) {
        problems.push(`${where(path)}: ${path.join('.')}: unknown setting "${key}"; valid keys: ${settingSpecs.map((x) => x.key).join(', ')}`);
        continue;
      }
      const checked = checkValue(spec, raw);
      if (checked.ok) overrides.push({ key, value: checked.value });
      else problems.push(`${where(path)}: ${path.join('.')}: ${key} ${checked.problem}`);
    }
    for (const problem of crossCheck(applyOverrides(settings, overrides))) problems.push(`${where(['presets', presetName])}: preset ${presetName}: ${problem}`);
    presets.push({ name: presetName, say: preset.say, overrides });
  }

  let sweep: LabSweep | null = null;
  if (front.sweep) {
    const spec = settingSpec(front.sweep.key);
    if (!spec) {
      problems.push(`${where(['sweep', 'key'])}: sweep.key: unknown setting "${front.sweep.key}"; valid keys: ${settingSpecs.map((s) => s.key).join(', ')}`);
    } else {
      const values: SettingValue[] = [];
      front.sweep.values.forEach((raw, i) => {
        const checked = checkValue(spec, raw);
        if (checked.ok) values.push(checked.value);
        else problems.push(`${where(['sweep', 'values', i])}: sweep.values[${i}]: ${spec.key} ${checked.problem}`);
      });
      const labels = values.map(formatSettingValue);
      const duplicate = labels.find((label, i) => labels.indexOf(label) !== i);
      if (duplicate !== undefined) problems.push(`${where(['sweep', 'values'])}: sweep.values: ${duplicate} appears twice`);
      const relativeTo = front.sweep.relativeTo ?? null;
      if (relativeTo !== null && spec.key !== 'workload.rate') {
        problems.push(`${where(['sweep', 'relativeTo'])}: sweep.relativeTo: only workload.rate can be swept relative to the capacity`);
      }
      sweep = { key: spec.key, values, labels, relativeTo };
      for (const problem of values.flatMap((value) => crossCheck(applyOverrides(settings, [{ key: spec.key, value }])))) {
        problems.push(`${where(['sweep'])}: sweep: ${problem}`);
      }
    }
  }

  let chart: LabChart | null = null;
  if (front.chart) {
    const c = front.chart;
    const pointMetric = (name: string, path: PropertyKey[]) => {
      if (!isLabMetric(name)) problems.push(`${where(path)}: ${path.join('.')}: unknown metric "${name}"`);
      else if (isSweepMetric(name)) problems.push(`${where(path)}: ${path.join('.')}: ${name} is one number per sweep; a chart draws point metrics`);
    };
    const timeSeries = (name: string, path: PropertyKey[]) => {
      if (!timeSeriesInfo(name)) problems.push(`${where(path)}: ${path.join('.')}: "${name}" is not a series over time; a time chart draws ${timeSeriesCatalogue.map((t) => t.name).join(', ')}`);
    };
    c.y.forEach((name, i) => (c.kind === 'time' ? timeSeries : pointMetric)(name, ['chart', 'y', i]));
    if (c.slo) pointMetric(c.slo.of, ['chart', 'slo', 'of']);
    if (!sweep) problems.push(`${where(['chart'])}: chart: a chart compares the points of a sweep; this lab has none`);
    const numeric = sweep && ['int', 'number', 'length'].includes(settingSpec(sweep.key)?.kind ?? '');
    if (c.kind === 'line' && sweep && !numeric) problems.push(`${where(['chart', 'kind'])}: chart.kind: a line needs a numeric sweep; ${sweep.key} is not (use bars)`);
    const lineOnly = (['fit', 'slo', 'logX', 'knee'] as const).filter((key) => c[key] !== undefined && c[key] !== false);
    if (c.kind !== 'line' && lineOnly.length > 0) problems.push(`${where(['chart', lineOnly[0]])}: chart.${lineOnly[0]}: only for kind: line`);
    if (c.kind === 'time' && c.roofline) problems.push(`${where(['chart', 'roofline'])}: chart.roofline: not for kind: time`);
    chart = { kind: c.kind, y: c.y, logX: c.logX, fit: c.fit ?? null, slo: c.slo ?? null, knee: c.knee, roofline: c.roofline };
  }

  const expect: CheckSpec[] = [];
  front.expect.forEach((raw, i) => {
    try {
      expect.push(parseCheck(raw, sweep ? sweep.labels : null));
    } catch (error) {
      if (!(error instanceof CheckSyntaxError)) throw error;
      problems.push(`${where(['expect', i, 'metric'])}: expect[${i}].metric: ${error.message}`);
    }
  });
  if (problems.length > 0) throw new LabFileError(problems);

  return { name, file, title: front.title, summary: front.summary, settings, fileSettings, sweep, presets, expect, chart, body, bodyLine };
}
