// kb-calc blocks: parametric calculation cards. Parse and validate the YAML block, draw fresh
// values, compute and check the answer, and fill `{name}` placeholders in text.
import { isMap, isScalar, type Node, type Pair, type YAMLMap } from 'yaml';
import { compileFormula, evaluate, FormulaError, isReservedName, type Expr } from './calc-expression.ts';
import { seededRandom } from './seeded-random.ts';
import type { CalcSpec, CalcVar, Diagnostic, KbPath } from '../model/knowledge-base.ts';
import { lineAt, parseYaml, yamlProblems } from './yaml-safe.ts';
import { isLabMetric, isSweepMetric, labMetricNames } from '../lab/metrics.ts';
import { nearestTypo } from '../lab/typo.ts';

const NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;
const KNOWN_KEYS = new Set(['vars', 'answer', 'unit', 'tolerance', 'explain']);
/** The tolerance when a block gives none: a percent absorbs rounding in a typed answer. */
const DEFAULT_TOLERANCE = { kind: 'rel', value: 0.01 } as const;
/** Results beyond this are overflow in disguise, not quantities of LLM inference. */
const MAX_MAGNITUDE = 1e100;
/** How many combinations of drawable values validation evaluates at most (per block). */
const MAX_CHECKS = 2000;
const MAX_CHOICES = 1000;
const MAX_RANGE_STEPS = 1_000_000;

export interface CalcParse {
  spec: CalcSpec | null;
  diagnostics: Diagnostic[];
}

/**
 * Parses the YAML of a ```kb-calc block whose fence is on `line`, then validates it. Any error
 * (with file and line) leaves `spec` null: a card never draws from a block kb could not check.
 */
export function parseCalc(yamlSource: string, line: number, file: KbPath): CalcParse {
  const diagnostics: Diagnostic[] = [];
  // YAML line 1 is the line after the fence.
  const lineOf = (node: { range?: [number, number, number] | null } | null | undefined) =>
    line + (node?.range ? lineAt(yamlSource, node.range[0]) : 1);
  const error = (at: number, message: string) => diagnostics.push({ severity: 'error', file, line: at, message: `kb-calc: ${message}` });
  const warning = (at: number, message: string) => diagnostics.push({ severity: 'warning', file, line: at, message: `kb-calc: ${message}` });

  const doc = parseYaml(yamlSource);
  for (const problem of yamlProblems(doc, yamlSource)) {
    diagnostics.push({ severity: problem.severity, file, line: line + problem.line, message: `kb-calc: ${problem.message}` });
  }
  if (diagnostics.some((d) => d.severity === 'error')) return { spec: null, diagnostics };
  if (!isMap(doc.contents)) {
    error(line, 'expected a mapping with vars, answer, unit, tolerance and explain');
    return { spec: null, diagnostics };
  }
  const top = doc.contents;
  for (const pair of top.items) {
    const key = isScalar(pair.key) ? String(pair.key.value) : '';
    if (!KNOWN_KEYS.has(key)) warning(lineOf(pair.key as Node), `unknown key "${key}" ignored`);
  }

  const vars: CalcVar[] = [];
  const declared = new Set<string>();
  const varsPair = findPair(top, 'vars');
  if (varsPair && varsPair.value !== null && !isMap(varsPair.value)) {
    error(lineOf(varsPair.value as Node), 'vars must be a mapping of names to ranges, lists or formulas');
  } else if (varsPair && isMap(varsPair.value)) {
    for (const pair of varsPair.value.items) {
      const at = lineOf(pair.key as Node);
      const name = isScalar(pair.key) ? String(pair.key.value) : '';
      if (!NAME_PATTERN.test(name)) { error(at, `variable name "${name}" must be letters, digits or _`); continue; }
      if (isReservedName(name)) { error(at, `"${name}" is a function, constant or answer: choose another variable name`); continue; }
      const parsed = parseVar(name, pair.value as Node | null, declared);
      if (typeof parsed === 'string') error(at, `${name}: ${parsed}`);
      else vars.push(parsed);
      declared.add(name);
    }
  }

  const answerPair = findPair(top, 'answer');
  const answerValue = answerPair && isScalar(answerPair.value) ? answerPair.value.value : undefined;
  let answer = '';
  if (typeof answerValue === 'string' || typeof answerValue === 'number') {
    answer = String(answerValue);
    try {
      compileFormula(answer, declared);
    } catch (problem) {
      error(lineOf(answerPair?.value as Node), `answer: ${(problem as Error).message}`);
    }
  } else {
    error(answerPair ? lineOf(answerPair.key as Node) : line, 'answer: a formula is required');
  }

  const unitValue = scalarValue(top, 'unit');
  const unit = unitValue === undefined || unitValue === null ? null : String(unitValue).trim() || null;

  const toleranceValue = scalarValue(top, 'tolerance');
  const tolerance = parseTolerance(toleranceValue);
  if (tolerance === null) error(lineOf(findPair(top, 'tolerance')?.value as Node), `tolerance: expected a percent like 1% or an absolute number like 0.5, got ${JSON.stringify(toleranceValue)}`);

  const explainValue = scalarValue(top, 'explain');
  const explain = explainValue === undefined || explainValue === null ? null : String(explainValue);
  if (explain !== null) {
    for (const name of placeholders(explain)) {
      if (!declared.has(name) && name !== 'answer') warning(lineOf(findPair(top, 'explain')?.value as Node), `explain: {${name}} is not a variable; it stays as written`);
    }
  }

  if (diagnostics.some((d) => d.severity === 'error')) return { spec: null, diagnostics };
  const spec: CalcSpec = { vars, answer, unit, tolerance: tolerance ?? DEFAULT_TOLERANCE, explain, line };
  const problems = validateCalc(spec, file);
  diagnostics.push(...problems);
  return { spec: problems.some((d) => d.severity === 'error') ? null : spec, diagnostics };
}

function findPair(map: YAMLMap, key: string): Pair | undefined {
  return map.items.find((pair) => isScalar(pair.key) && pair.key.value === key) as Pair | undefined;
}

function scalarValue(map: YAMLMap, key: string): unknown {
  const pair = findPair(map, key);
  if (!pair) return undefined;
  return isScalar(pair.value) ? pair.value.value : pair.value === null ? null : (pair.value as Node).toJSON();
}

/** A variable from its YAML value, or the reason it is refused. */
function parseVar(name: string, node: Node | null, declared: ReadonlySet<string>): CalcVar | string {
  if (node === null) return 'needs a range, a list or a formula';
  if (isScalar(node)) {
    if (typeof node.value === 'number') {
      return Number.isFinite(node.value) ? { name, kind: 'choose', values: [node.value] } : 'number too large';
    }
    if (typeof node.value !== 'string') return 'needs a range, a list or a formula';
    try {
      compileFormula(node.value, declared);
    } catch (problem) {
      return (problem as Error).message;
    }
    return { name, kind: 'expr', expr: node.value };
  }
  if (!isMap(node)) return 'needs a range { min, max, step }, a list { choose: [...] } or a formula';
  const fields = node.toJSON() as Record<string, unknown>;
  const keys = Object.keys(fields);
  if (keys.length === 1 && keys[0] === 'choose') {
    const values = fields.choose;
    if (!Array.isArray(values) || values.length === 0) return 'choose needs a non-empty list of numbers';
    if (values.length > MAX_CHOICES) return `choose takes at most ${MAX_CHOICES} values`;
    if (!values.every((v) => typeof v === 'number' && Number.isFinite(v))) return 'choose takes numbers only';
    return { name, kind: 'choose', values: values as number[] };
  }
  if (keys.includes('lab') || keys.includes('metric')) return parseLabVar(name, fields);
  const extra = keys.filter((key) => key !== 'min' && key !== 'max' && key !== 'step');
  if (extra.length > 0) return `unknown field ${extra.map((k) => `"${k}"`).join(', ')} (a range has min, max, step; a list has choose)`;
  const { min, max, step } = fields;
  if (![min, max, step].every((v) => typeof v === 'number' && Number.isFinite(v))) return 'a range needs numbers min, max and step';
  const range = { name, kind: 'range' as const, min: min as number, max: max as number, step: step as number };
  if (range.step <= 0) return 'step must be above 0';
  if (range.max < range.min) return 'max must not be below min';
  if (rangeCount(range) > MAX_RANGE_STEPS) return `a range may hold at most ${MAX_RANGE_STEPS} values`;
  return range;
}

const LAB_NAME = /^[a-z0-9][a-z0-9-]*$/;
const LAB_METRIC = /^[a-z_][a-z0-9_.]*(@[^\s@]+)?$/;

/** `{ lab, metric, fallback }`: shape only here; scan checks the lab and the metric exist. */
function parseLabVar(name: string, fields: Record<string, unknown>): CalcVar | string {
  const extra = Object.keys(fields).filter((key) => key !== 'lab' && key !== 'metric' && key !== 'fallback');
  if (extra.length > 0) return `unknown field ${extra.map((k) => `"${k}"`).join(', ')} (a lab figure has lab, metric, fallback)`;
  const { lab, metric, fallback } = fields;
  if (typeof lab !== 'string' || !LAB_NAME.test(lab)) return 'lab must be a lab name (lowercase letters, digits, -)';
  if (typeof metric !== 'string' || !LAB_METRIC.test(metric)) return 'metric must be a lab metric, e.g. decode.tokens_per_s@1 (see kb lab show)';
  const [base, point] = metric.split('@');
  if (!isLabMetric(base)) {
    // The metric a typo away comes first: alone, the list of ~90 names hid the one meant.
    const closest = nearestTypo(base, labMetricNames());
    return `metric: "${base}" is not a lab metric; ${closest ? `did you mean ${closest}? Known` : 'known'} metrics: ${labMetricNames().join(", ")}`;
  }
  if (point !== undefined && isSweepMetric(base)) return `metric: ${base} is one number per sweep; drop @${point}`;
  if (typeof fallback !== 'number' || !Number.isFinite(fallback)) return 'fallback must be a number: the figure used until the learner has run the lab';
  return { name, kind: 'lab', lab, metric, fallback };
}

/** A lab-sourced variable's value: the learner's figure when there is one, else the fallback. */
export function labVarValue(variable: Extract<CalcVar, { kind: 'lab' }>): number {
  return variable.figure?.value ?? variable.fallback;
}

function parseTolerance(value: unknown): CalcSpec['tolerance'] | null {
  if (value === undefined || value === null) return DEFAULT_TOLERANCE;
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? { kind: 'abs', value } : null;
  if (typeof value !== 'string') return null;
  const percent = /^\s*(\d+(?:\.\d+)?)\s*%\s*$/.exec(value);
  if (percent) return { kind: 'rel', value: Number(percent[1]) / 100 };
  const absolute = /^\s*(\d+(?:\.\d+)?(?:e[-+]?\d+)?)\s*$/i.exec(value);
  return absolute ? { kind: 'abs', value: Number(absolute[1]) } : null;
}

/** `{name}` placeholders of a template, in order. */
export function placeholders(text: string): string[] {
  return [...text.matchAll(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g)].map((match) => match[1]);
}

// ---- compiled form, cached per spec object ----

interface CompiledCalc {
  vars: Array<{ variable: CalcVar; expr: Expr | null }>;
  answer: Expr;
}

const compiledCache = new WeakMap<CalcSpec, CompiledCalc>();

function compiled(spec: CalcSpec): CompiledCalc {
  let result = compiledCache.get(spec);
  if (!result) {
    const known = new Set<string>();
    const vars = spec.vars.map((variable) => {
      const expr = variable.kind === 'expr' ? compileFormula(variable.expr, known) : null;
      known.add(variable.name);
      return { variable, expr };
    });
    result = { vars, answer: compileFormula(spec.answer, known) };
    compiledCache.set(spec, result);
  }
  return result;
}

function rangeCount(range: { min: number; max: number; step: number }): number {
  // The epsilon keeps 0.2..1.0 step 0.1 at nine values despite binary fractions.
  return Math.floor((range.max - range.min) / range.step + 1e-9) + 1;
}

function decimals(value: number): number {
  const text = String(value);
  const exponent = /e-(\d+)$/.exec(text);
  if (exponent) return Number(exponent[1]) + (text.split('e')[0].split('.')[1]?.length ?? 0);
  return text.split('.')[1]?.length ?? 0;
}

/** The k-th value of a range, rounded to the precision its min and step are written in. */
function rangeValue(range: { min: number; step: number }, k: number): number {
  const digits = Math.min(15, Math.max(decimals(range.min), decimals(range.step)));
  return Number((range.min + k * range.step).toFixed(digits));
}

/** Fresh values for every variable, in declaration order. */
export function drawCalc(spec: CalcSpec, rng: () => number): Record<string, number> {
  const values: Record<string, number> = {};
  for (const { variable, expr } of compiled(spec).vars) {
    if (variable.kind === 'range') {
      const count = rangeCount(variable);
      values[variable.name] = rangeValue(variable, Math.min(count - 1, Math.floor(rng() * count)));
    } else if (variable.kind === 'choose') {
      values[variable.name] = variable.values[Math.min(variable.values.length - 1, Math.floor(rng() * variable.values.length))];
    } else if (variable.kind === 'lab') {
      values[variable.name] = labVarValue(variable);
    } else {
      values[variable.name] = evaluate(expr as Expr, values);
    }
  }
  return values;
}

/** Values with every formula variable computed from the drawn ones (missing ones filled in). */
function completeValues(spec: CalcSpec, values: Readonly<Record<string, number>>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const { variable, expr } of compiled(spec).vars) {
    if (Object.hasOwn(values, variable.name)) out[variable.name] = values[variable.name];
    else if (expr) out[variable.name] = evaluate(expr, out);
    else throw new FormulaError(`no value drawn for "${variable.name}"`);
  }
  return out;
}

export function calcAnswer(spec: CalcSpec, values: Readonly<Record<string, number>>): number {
  return evaluate(compiled(spec).answer, completeValues(spec, values));
}

/** Whether a typed number is within the block's tolerance of the answer. */
export function checkCalcAnswer(spec: CalcSpec, values: Readonly<Record<string, number>>, typed: number): boolean {
  if (!Number.isFinite(typed)) return false;
  const expected = calcAnswer(spec, values);
  const difference = Math.abs(typed - expected);
  // A few ulps of slack so that typing the exact decimal of a binary fraction always counts.
  const slack = 1e-12 * Math.max(1, Math.abs(expected));
  const allowed = spec.tolerance.kind === 'abs' ? spec.tolerance.value : spec.tolerance.value * Math.abs(expected);
  return difference <= allowed + slack;
}

/**
 * Fills `{name}` with the values (numbers formatted for reading). With `spec`, `{answer}` is
 * computed when not among the values. Unknown names stay as written.
 */
export function renderTemplate(text: string, values: Readonly<Record<string, number>>, spec?: CalcSpec): string {
  let all: Readonly<Record<string, number>> = values;
  if (spec && !Object.hasOwn(values, 'answer') && text.includes('{answer}')) {
    all = { ...completeValues(spec, values), answer: calcAnswer(spec, values) };
  }
  return text.replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (whole, name: string) =>
    Object.hasOwn(all, name) ? formatNumber(all[name]) : whole);
}

/** Up to 4 significant digits, no trailing zeros; whole numbers in full (20, 0.02, 1235, 4096). */
export function formatNumber(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  if (Object.is(value, -0)) return '0';
  if (Number.isInteger(value) && Math.abs(value) < 1e21) return String(value);
  if (Math.abs(value) >= 1000) return String(Math.round(value));
  return String(Number(value.toPrecision(4)));
}

// ---- validation ----

/**
 * Evaluates every formula over the values a quiz can draw: each range's ends (all its values
 * when there are few), every list value, and a seeded sample when the combinations are too
 * many. A NaN, an infinity or an absurd magnitude anywhere is an error naming the values.
 */
export function validateCalc(spec: CalcSpec, file: KbPath = ''): Diagnostic[] {
  let program: CompiledCalc;
  try {
    program = compiled(spec);
  } catch (problem) {
    return [{ severity: 'error', file, line: spec.line, message: `kb-calc: ${(problem as Error).message}` }];
  }
  const candidates = program.vars.map(({ variable }) => candidateValues(variable));
  for (const values of combinations(spec, program, candidates)) {
    const problem = checkOnce(program, values);
    if (problem) return [{ severity: 'error', file, line: spec.line, message: `kb-calc: ${problem}` }];
  }
  return [];
}

function candidateValues(variable: CalcVar): number[] | null {
  if (variable.kind === 'choose') return variable.values;
  // A learner's figure can be anything positive: check the fallback and a spread around it.
  if (variable.kind === 'lab') return [variable.fallback, variable.fallback / 10, variable.fallback * 10].filter((v, i, all) => all.indexOf(v) === i);
  if (variable.kind === 'expr') return null;
  const count = rangeCount(variable);
  if (count <= 16) return Array.from({ length: count }, (_, k) => rangeValue(variable, k));
  const picks = new Set<number>([0, count - 1]);
  for (let i = 1; i < 15; i++) picks.add(Math.round((i * (count - 1)) / 15));
  return [...picks].sort((a, b) => a - b).map((k) => rangeValue(variable, k));
}

/** Drawn-variable assignments to check: all combinations if few, else ends plus a seeded sample. */
function* combinations(spec: CalcSpec, program: CompiledCalc, candidates: Array<number[] | null>): Generator<Record<string, number>> {
  const drawn = program.vars.map(({ variable }, i) => ({ name: variable.name, values: candidates[i] })).filter((v) => v.values !== null) as Array<{ name: string; values: number[] }>;
  const total = drawn.reduce((product, v) => product * v.values.length, 1);
  if (total <= MAX_CHECKS) {
    const index = new Array<number>(drawn.length).fill(0);
    for (let n = 0; n < total; n++) {
      const values: Record<string, number> = {};
      drawn.forEach((v, i) => { values[v.name] = v.values[index[i]]; });
      yield values;
      for (let i = 0; i < index.length; i++) {
        index[i]++;
        if (index[i] < drawn[i].values.length) break;
        index[i] = 0;
      }
    }
    return;
  }
  // All-lowest and all-highest, then a reproducible sample over candidates and real draws.
  yield Object.fromEntries(drawn.map((v) => [v.name, v.values[0]]));
  yield Object.fromEntries(drawn.map((v) => [v.name, v.values[v.values.length - 1]]));
  const rng = seededRandom(0x6b62);
  for (let n = 0; n < MAX_CHECKS / 2; n++) {
    yield Object.fromEntries(drawn.map((v) => [v.name, v.values[Math.floor(rng() * v.values.length)]]));
  }
  for (let n = 0; n < MAX_CHECKS / 2; n++) {
    const values = drawCalc(spec, rng);
    yield Object.fromEntries(drawn.map((v) => [v.name, values[v.name]]));
  }
}

function checkOnce(program: CompiledCalc, drawn: Record<string, number>): string | null {
  const values: Record<string, number> = {};
  const describe = () => Object.entries(drawn).map(([name, value]) => `${name}=${formatNumber(value)}`).join(', ');
  for (const { variable, expr } of program.vars) {
    values[variable.name] = expr ? evaluate(expr, values) : drawn[variable.name];
    const problem = badNumber(values[variable.name]);
    if (problem) return `${variable.name} is ${problem} when ${describe()}`;
  }
  const answer = evaluate(program.answer, values);
  const problem = badNumber(answer);
  return problem ? `answer is ${problem} when ${describe()}` : null;
}

function badNumber(value: number): string | null {
  if (Number.isNaN(value)) return 'not a number (NaN)';
  if (!Number.isFinite(value)) return 'infinite';
  if (Math.abs(value) > MAX_MAGNITUDE) return `huge (${value.toExponential(2)})`;
  return null;
}
