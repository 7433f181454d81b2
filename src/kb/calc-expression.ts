// Formulas of kb-calc blocks: parsed by mathjs, then checked against a whitelist and compiled
// to a small tree that this file evaluates itself. Nothing reaches `eval`, `Function` or
// mathjs's evaluator; anything not on the list (member access, assignment, strings, matrices,
// unknown names, function definitions) is refused with a reason.
import { createRequire } from 'node:module';

export type Expr =
  | { k: 'num'; value: number }
  | { k: 'var'; name: string }
  | { k: 'neg'; arg: Expr }
  | { k: 'bin'; op: '+' | '-' | '*' | '/' | '^'; left: Expr; right: Expr }
  | { k: 'call'; fn: FunctionName; args: Expr[] };

const FUNCTIONS = {
  sqrt: { arity: [1, 1], apply: (a: number[]) => Math.sqrt(a[0]) },
  log: { arity: [1, 2], apply: (a: number[]) => (a.length === 2 ? Math.log(a[0]) / Math.log(a[1]) : Math.log(a[0])) },
  log2: { arity: [1, 1], apply: (a: number[]) => Math.log2(a[0]) },
  log10: { arity: [1, 1], apply: (a: number[]) => Math.log10(a[0]) },
  exp: { arity: [1, 1], apply: (a: number[]) => Math.exp(a[0]) },
  min: { arity: [1, 64], apply: (a: number[]) => Math.min(...a) },
  max: { arity: [1, 64], apply: (a: number[]) => Math.max(...a) },
  abs: { arity: [1, 1], apply: (a: number[]) => Math.abs(a[0]) },
  ceil: { arity: [1, 1], apply: (a: number[]) => Math.ceil(a[0]) },
  floor: { arity: [1, 1], apply: (a: number[]) => Math.floor(a[0]) },
  round: { arity: [1, 2], apply: (a: number[]) => (a.length === 2 ? roundTo(a[0], a[1]) : Math.round(a[0])) },
  pow: { arity: [2, 2], apply: (a: number[]) => Math.pow(a[0], a[1]) },
} as const satisfies Record<string, { arity: readonly [number, number]; apply: (args: number[]) => number }>;

export type FunctionName = keyof typeof FUNCTIONS;

const CONSTANTS = new Map<string, number>([['pi', Math.PI], ['e', Math.E]]);

/** Names a variable may not take: they already mean something in a formula or a template. */
export function isReservedName(name: string): boolean {
  return Object.hasOwn(FUNCTIONS, name) || CONSTANTS.has(name) || name === 'answer';
}

/** Longer formulas are not worth reading; deeper ones could exhaust the stack. */
const MAX_FORMULA_LENGTH = 500;
const MAX_DEPTH = 64;
/** 2^1000 is already ~1e301: a larger literal exponent is a mistake or an attack. */
const MAX_LITERAL_EXPONENT = 1000;

type BinaryOperator = '+' | '-' | '*' | '/' | '^';

const OPERATORS: Record<string, BinaryOperator> = {
  add: '+', subtract: '-', multiply: '*', divide: '/', pow: '^',
};

export class FormulaError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FormulaError';
  }
}

interface MathNode {
  type: string;
  [key: string]: unknown;
}

let mathParse: ((source: string) => MathNode) | null = null;

/** mathjs takes half a second to load: only files with kb-calc blocks pay for it. */
function loadParser(): (source: string) => MathNode {
  if (!mathParse) {
    const require = createRequire(import.meta.url);
    const mathjs = require('mathjs/number') as { parse: (source: string) => MathNode };
    mathParse = (source) => mathjs.parse(source);
  }
  return mathParse;
}

/** Parses and checks a formula whose names must all be in `known`. Throws FormulaError. */
export function compileFormula(source: string, known: ReadonlySet<string>): Expr {
  if (source.length > MAX_FORMULA_LENGTH) throw new FormulaError(`formula longer than ${MAX_FORMULA_LENGTH} characters`);
  let tree: MathNode;
  try {
    tree = loadParser()(source);
  } catch (error) {
    throw new FormulaError(`cannot parse "${source}": ${(error as Error).message}`);
  }
  return compileNode(tree, known, 0);
}

function compileNode(node: MathNode, known: ReadonlySet<string>, depth: number): Expr {
  if (depth > MAX_DEPTH) throw new FormulaError(`formula nested deeper than ${MAX_DEPTH} levels`);
  switch (node.type) {
    case 'ConstantNode': {
      const value = node.value;
      if (typeof value !== 'number') throw new FormulaError(`only numbers are allowed, not ${JSON.stringify(value)}`);
      if (!Number.isFinite(value)) throw new FormulaError('number too large');
      return { k: 'num', value };
    }
    case 'SymbolNode': {
      const name = String(node.name);
      if (known.has(name)) return { k: 'var', name };
      const constant = CONSTANTS.get(name);
      if (constant !== undefined) return { k: 'num', value: constant };
      throw new FormulaError(`unknown name "${name}" (use variables declared above it, pi or e)`);
    }
    case 'ParenthesisNode':
      return compileNode(node.content as MathNode, known, depth + 1);
    case 'OperatorNode': {
      const fn = String(node.fn);
      const args = node.args as MathNode[];
      if (node.implicit) throw new FormulaError(`write multiplication with * (found "${String(node.op)}" implied)`);
      if ((fn === 'unaryMinus' || fn === 'unaryPlus') && args.length === 1) {
        const arg = compileNode(args[0], known, depth + 1);
        return fn === 'unaryMinus' ? { k: 'neg', arg } : arg;
      }
      const op = Object.hasOwn(OPERATORS, fn) ? OPERATORS[fn] : undefined;
      if (op === undefined || args.length !== 2) throw new FormulaError(`operator "${String(node.op)}" is not allowed (only + - * / ^)`);
      const left = compileNode(args[0], known, depth + 1);
      const right = compileNode(args[1], known, depth + 1);
      if (op === '^' && right.k === 'num' && Math.abs(right.value) > MAX_LITERAL_EXPONENT) {
        throw new FormulaError(`exponent ${right.value} is too large`);
      }
      return { k: 'bin', op, left, right };
    }
    case 'FunctionNode': {
      const callee = node.fn as MathNode;
      const name = callee.type === 'SymbolNode' ? String(callee.name) : null;
      if (name === null || !Object.hasOwn(FUNCTIONS, name)) {
        throw new FormulaError(`function ${name === null ? '(computed)' : `"${name}"`} is not allowed (allowed: ${Object.keys(FUNCTIONS).join(', ')})`);
      }
      const fn = name as FunctionName;
      const args = (node.args as MathNode[]).map((arg) => compileNode(arg, known, depth + 1));
      const [low, high] = FUNCTIONS[fn].arity;
      if (args.length < low || args.length > high) throw new FormulaError(`${fn} takes ${low === high ? low : `${low} to ${high}`} argument(s)`);
      if (fn === 'pow' && args[1].k === 'num' && Math.abs(args[1].value) > MAX_LITERAL_EXPONENT) {
        throw new FormulaError(`exponent ${args[1].value} is too large`);
      }
      return { k: 'call', fn, args };
    }
    default:
      throw new FormulaError(`${describeNode(node.type)} is not allowed in a formula`);
  }
}

function describeNode(type: string): string {
  const names: Record<string, string> = {
    AccessorNode: 'property access (a.b, a[b])',
    AssignmentNode: 'assignment',
    FunctionAssignmentNode: 'a function definition',
    ArrayNode: 'a matrix or list',
    ObjectNode: 'an object',
    IndexNode: 'indexing',
    ConditionalNode: 'a conditional (a ? b : c)',
    RangeNode: 'a range (a:b)',
    RelationalNode: 'a comparison',
    BlockNode: 'several statements',
  };
  return Object.hasOwn(names, type) ? names[type] : `"${type}"`;
}

/** Evaluates a compiled formula. Values are looked up as own properties only. */
export function evaluate(expr: Expr, values: Readonly<Record<string, number>>): number {
  switch (expr.k) {
    case 'num':
      return expr.value;
    case 'var':
      if (!Object.hasOwn(values, expr.name)) throw new FormulaError(`no value for "${expr.name}"`);
      return values[expr.name];
    case 'neg':
      return -evaluate(expr.arg, values);
    case 'bin': {
      const a = evaluate(expr.left, values);
      const b = evaluate(expr.right, values);
      switch (expr.op) {
        case '+': return a + b;
        case '-': return a - b;
        case '*': return a * b;
        case '/': return a / b;
        case '^': return Math.pow(a, b);
      }
      break;
    }
    case 'call':
      return FUNCTIONS[expr.fn].apply(expr.args.map((arg) => evaluate(arg, values)));
  }
  throw new FormulaError('unreachable');
}

function roundTo(value: number, digits: number): number {
  const factor = Math.pow(10, Math.round(digits));
  return Math.round(value * factor) / factor;
}
