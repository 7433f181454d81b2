// Formulas of kb-calc blocks: numbers, variables declared above, pi and e, + - * / ^ and
// parentheses, and a short list of functions, parsed here by recursive descent into a small
// tree that this file evaluates itself. Nothing reaches `eval` or `Function`; anything else
// (member access, assignment, strings, lists, comparisons, unknown names, function
// definitions) is refused with a reason. The grammar is mathjs's for that subset, which kb
// used to parse with: `-2^2` is -4, `2^3^2` is 2^9, `2^-1` is 0.5, and `2 x` must be `2 * x`.
// (Loading mathjs cost every kb due and kb review with a calc card ~0.35 s.)

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
const MAX_LITERAL_EXPONENT = 1000;

export class FormulaError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FormulaError';
  }
}

type Token =
  | { t: 'num'; value: number; text: string; at: number }
  | { t: 'name'; text: string; at: number }
  | { t: 'op'; text: string; at: number }
  | { t: 'end'; text: ''; at: number };

// Hexadecimal, binary and octal as mathjs reads them (0x10, 0b101, 0o17); `3.` is a number, but
// in `3.^2` the dot belongs to mathjs's element-wise `.^` (refused).
const NUMBER = /0[xX][\da-fA-F]+|0[bB][01]+|0[oO][0-7]+|\d+(?:\.(?![*/^])\d*)?(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?/y;
const NAME = /[A-Za-z_$][A-Za-z0-9_$]*/y;
/** Two-character operators first, so `==` is not read as `=` `=`. */
const OPERATOR = /==|!=|<=|>=|<<|>>|&&|\|\||\.\*|\.\/|\.\^|[-+*/^(),.[\]{}=<>!?:;%&|~'"\n]/y;
/** Words mathjs reads as operators: refused as such, not as unknown names. */
const OPERATOR_WORDS = new Set(['mod', 'and', 'or', 'xor', 'not', 'to', 'in']);

function readToken(source: string, at: number): Token | null {
  for (const [pattern, kind] of [[NUMBER, 'num'], [NAME, 'name'], [OPERATOR, 'op']] as const) {
    pattern.lastIndex = at;
    const match = pattern.exec(source);
    if (!match) continue;
    const text = match[0];
    return kind === 'num' ? { t: 'num', value: Number(text), text, at } : { t: kind, text, at };
  }
  return null;
}

function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let at = 0;
  while (at < source.length) {
    const c = source[at];
    if (c === ' ' || c === '\t' || c === '\r') {
      at++;
      continue;
    }
    const token = readToken(source, at);
    if (token === null) throw new FormulaError(`cannot parse "${source}": unexpected "${c}" at character ${at + 1}`);
    tokens.push(token);
    at += token.text.length;
  }
  tokens.push({ t: 'end', text: '', at: source.length });
  return tokens;
}

/** A number, a name that is not an operator word, or `(`: the start of a value. */
function startsValue(token: Token | undefined): boolean {
  if (token === undefined) return false;
  return token.t === 'num' || (token.t === 'name' && !OPERATOR_WORDS.has(token.text)) || (token.t === 'op' && token.text === '(');
}

/** What a token that cannot continue a formula starts, refused by name. */
function refusal(token: Token, source: string): FormulaError {
  const notAllowed = (what: string) => new FormulaError(`${what} is not allowed in a formula`);
  const text = token.text;
  if (token.t === 'end') return new FormulaError(`cannot parse "${source}": it ends too early`);
  if (startsValue(token)) {
    return new FormulaError(`write multiplication with * (found "${text}" right after a value)`);
  }
  if (token.t === 'name') return new FormulaError(`operator "${text}" is not allowed (only + - * / ^)`);
  switch (text) {
    case '.':
    case '[':
      return notAllowed('property access (a.b, a[b])');
    case '=':
      return notAllowed('assignment');
    case '?':
      return notAllowed('a conditional (a ? b : c)');
    case ':':
      return notAllowed('a range (a:b)');
    case ';':
    case '\n':
      return notAllowed('several statements');
    case '==':
    case '!=':
    case '<':
    case '>':
    case '<=':
    case '>=':
      return notAllowed('a comparison');
    case ')':
    case ',':
      return new FormulaError(`cannot parse "${source}": unexpected "${text}" at character ${token.at + 1}`);
    default:
      return new FormulaError(`operator "${text}" is not allowed (only + - * / ^)`);
  }
}

/** Recursive descent over the tokens: additive > multiplicative > unary > power > primary. */
class FormulaParser {
  private next = 0;
  private readonly tokens: Token[];
  private readonly source: string;
  private readonly known: ReadonlySet<string>;

  constructor(tokens: Token[], source: string, known: ReadonlySet<string>) {
    this.tokens = tokens;
    this.source = source;
    this.known = known;
  }

  private peek(): Token {
    return this.tokens[this.next];
  }

  private take(): Token {
    return this.tokens[this.next++];
  }

  private isOp(text: string): boolean {
    const token = this.peek();
    return token.t === 'op' && token.text === text;
  }

  parseFormula(): Expr {
    const expr = this.additive();
    // A formula may end with line breaks (a YAML block scalar keeps its last one); more after
    // one is a second formula.
    const lineBreak = this.peek();
    while (this.isOp('\n')) this.take();
    if (this.peek().t !== 'end') throw refusal(lineBreak.text === '\n' ? lineBreak : this.peek(), this.source);
    return expr;
  }

  private additive(): Expr {
    let left = this.multiplicative();
    while (this.isOp('+') || this.isOp('-')) {
      const op = this.take().text as '+' | '-';
      left = { k: 'bin', op, left, right: this.multiplicative() };
    }
    return left;
  }

  private multiplicative(): Expr {
    let left = this.unary();
    for (;;) {
      if (this.isOp('*') || this.isOp('/')) {
        const op = this.take().text as '*' | '/';
        left = { k: 'bin', op, left, right: this.unary() };
        continue;
      }
      const token = this.peek();
      // A value right after a value: mathjs multiplies them; kb asks for the * (2 x, 2(x), x y).
      if (startsValue(token)) throw refusal(token, this.source);
      return left;
    }
  }

  private unary(): Expr {
    // Where a value must come, a line break is only space (mathjs reads "a +\n b" as one formula).
    while (this.next > 0 && this.isOp('\n')) this.take();
    if (this.isOp('-')) {
      this.take();
      return { k: 'neg', arg: this.unary() };
    }
    if (this.isOp('+')) {
      this.take();
      return this.unary();
    }
    return this.power();
  }

  private power(): Expr {
    const base = this.postfix();
    if (!this.isOp('^')) return base;
    this.take();
    // Right-associative, and the exponent may carry a sign: 2^3^2 = 2^9, 2^-1 = 0.5.
    const exponent = this.unary();
    checkExponent(exponent);
    return { k: 'bin', op: '^', left: base, right: exponent };
  }

  private postfix(): Expr {
    let value = this.primary();
    // x% is x / 100 when no value follows, signed or not (then % is mathjs's modulo, refused).
    while (this.isOp('%') && !this.valueAfter(this.next + 1)) {
      this.take();
      value = { k: 'bin', op: '/', left: value, right: { k: 'num', value: 100 } };
    }
    const token = this.peek();
    if (token.t === 'op' && ['!', "'", '.', '[', '='].includes(token.text)) throw refusal(token, this.source);
    return value;
  }

  private primary(): Expr {
    const token = this.take();
    if (token.t === 'num') {
      if (!Number.isFinite(token.value)) throw new FormulaError('number too large');
      return { k: 'num', value: token.value };
    }
    if (token.t === 'name') {
      if (this.isOp('(')) return this.call(token.text);
      if (OPERATOR_WORDS.has(token.text)) throw refusal(token, this.source);
      // What follows decides first (as mathjs's tree has it on top): x.y, x[y] and x = y are refused as such.
      if (this.isOp('.') || this.isOp('[') || this.isOp('=')) throw refusal(this.peek(), this.source);
      if (this.known.has(token.text)) return { k: 'var', name: token.text };
      const constant = CONSTANTS.get(token.text);
      if (constant !== undefined) return { k: 'num', value: constant };
      throw new FormulaError(`unknown name "${token.text}" (use variables declared above it, pi or e)`);
    }
    if (token.t === 'op') {
      if (token.text === '(') {
        const inner = this.additive();
        if (!this.isOp(')')) throw refusal(this.peek(), this.source);
        this.take();
        return inner;
      }
      if (token.text === '"' || token.text === "'") throw new FormulaError('only numbers are allowed, not text');
      if (token.text === '[') throw new FormulaError('a matrix or list is not allowed in a formula');
      if (token.text === '{') throw new FormulaError('an object is not allowed in a formula');
    }
    throw refusal(token, this.source);
  }

  /** Whether a value (after any signs) starts at token `at`. */
  private valueAfter(at: number): boolean {
    while (this.tokens[at]?.text === '+' || this.tokens[at]?.text === '-') at++;
    return startsValue(this.tokens[at]);
  }

  /** name( ... ): a whitelisted function's call; a definition (f(x) = ...) or any other name is refused first. */
  private call(name: string): Expr {
    if (!Object.hasOwn(FUNCTIONS, name)) {
      if (this.closesThenAssigns()) throw new FormulaError('a function definition is not allowed in a formula');
      throw new FormulaError(`function "${name}" is not allowed (allowed: ${Object.keys(FUNCTIONS).join(', ')})`);
    }
    const fn = name as FunctionName;
    this.take(); // (
    const args: Expr[] = [];
    if (!this.isOp(')')) {
      for (;;) {
        args.push(this.additive());
        if (!this.isOp(',')) break;
        this.take();
      }
    }
    if (!this.isOp(')')) throw refusal(this.peek(), this.source);
    this.take();
    const [low, high] = FUNCTIONS[fn].arity;
    if (args.length < low || args.length > high) throw new FormulaError(`${fn} takes ${low === high ? low : `${low} to ${high}`} argument(s)`);
    if (fn === 'pow') checkExponent(args[1]);
    return { k: 'call', fn, args };
  }

  /** At `(`: whether its matching `)` is followed by `=` (mathjs's f(x) = ... defines a function). */
  private closesThenAssigns(): boolean {
    let depth = 0;
    for (let i = this.next; i < this.tokens.length; i++) {
      const text = this.tokens[i].text;
      if (text === '(') depth++;
      else if (text === ')' && --depth === 0) return this.tokens[i + 1]?.text === '=';
    }
    return false;
  }
}

/** 2^1000 is already ~1e301: a larger literal exponent is a mistake or an attack. */
function checkExponent(exponent: Expr): void {
  const literal = exponent.k === 'num' ? exponent.value : exponent.k === 'neg' && exponent.arg.k === 'num' ? -exponent.arg.value : null;
  if (literal !== null && Math.abs(literal) > MAX_LITERAL_EXPONENT) throw new FormulaError(`exponent ${literal} is too large`);
}

function depthOf(expr: Expr): number {
  switch (expr.k) {
    case 'num':
    case 'var':
      return 0;
    case 'neg':
      return 1 + depthOf(expr.arg);
    case 'bin':
      return 1 + Math.max(depthOf(expr.left), depthOf(expr.right));
    case 'call':
      return 1 + Math.max(0, ...expr.args.map(depthOf));
  }
}

/** Parses and checks a formula whose names must all be in `known`. Throws FormulaError. */
export function compileFormula(source: string, known: ReadonlySet<string>): Expr {
  if (source.length > MAX_FORMULA_LENGTH) throw new FormulaError(`formula longer than ${MAX_FORMULA_LENGTH} characters`);
  const expr = new FormulaParser(tokenize(source), source, known).parseFormula();
  if (depthOf(expr) > MAX_DEPTH) throw new FormulaError(`formula nested deeper than ${MAX_DEPTH} levels`);
  return expr;
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
