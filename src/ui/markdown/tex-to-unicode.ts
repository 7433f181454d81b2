// TeX math ($x^2$, $$\frac{a}{b}$$) as plain Unicode a terminal can show: superscripts and
// subscripts where Unicode has the characters, a/b for fractions, Greek letters and operators
// as their symbols, \text{...} as its text. Not a typesetter: the aim is a formula that reads
// like the one a person would type in a chat (TTFT ≈ t_queue + t_prefill, x², √(a+b)).

const SUPERSCRIPT: Record<string, string> = Object.fromEntries(
  [...'0123456789+-=()ni'].map((c, i) => [c, '⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ⁿⁱ'[i]]),
);
const SUBSCRIPT: Record<string, string> = Object.fromEntries(
  [...'0123456789+-=()aeoxhklmnpst'].map((c, i) => [c, '₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎ₐₑₒₓₕₖₗₘₙₚₛₜ'[i]]),
);

const SYMBOLS: Record<string, string> = {
  alpha: 'α', beta: 'β', gamma: 'γ', delta: 'δ', epsilon: 'ε', varepsilon: 'ε', zeta: 'ζ', eta: 'η',
  theta: 'θ', vartheta: 'ϑ', iota: 'ι', kappa: 'κ', lambda: 'λ', mu: 'μ', nu: 'ν', xi: 'ξ', pi: 'π',
  rho: 'ρ', sigma: 'σ', tau: 'τ', upsilon: 'υ', phi: 'φ', varphi: 'φ', chi: 'χ', psi: 'ψ', omega: 'ω',
  Gamma: 'Γ', Delta: 'Δ', Theta: 'Θ', Lambda: 'Λ', Xi: 'Ξ', Pi: 'Π', Sigma: 'Σ', Phi: 'Φ', Psi: 'Ψ', Omega: 'Ω',
  times: '×', cdot: '·', div: '÷', pm: '±', mp: '∓', le: '≤', leq: '≤', ge: '≥', geq: '≥', ne: '≠', neq: '≠',
  approx: '≈', sim: '~', simeq: '≃', equiv: '≡', propto: '∝', infty: '∞', to: '→', rightarrow: '→',
  leftarrow: '←', Rightarrow: '⇒', Leftarrow: '⇐', leftrightarrow: '↔', mapsto: '↦', sum: 'Σ', prod: 'Π',
  int: '∫', partial: '∂', nabla: '∇', ll: '≪', gg: '≫', in: '∈', notin: '∉', subset: '⊂', cup: '∪',
  cap: '∩', forall: '∀', exists: '∃', ldots: '…', cdots: '⋯', dots: '…', lceil: '⌈', rceil: '⌉',
  lfloor: '⌊', rfloor: '⌋', langle: '⟨', rangle: '⟩', degree: '°', circ: '∘', star: '⋆', ast: '∗',
  log: 'log', ln: 'ln', exp: 'exp', min: 'min', max: 'max', lim: 'lim', sin: 'sin', cos: 'cos',
  argmax: 'argmax', argmin: 'argmin', quad: '  ', qquad: '    ',
};
const GREEK = /^(?:[a-z]*(?:alpha|beta|gamma|delta|epsilon|zeta|eta|theta|iota|kappa|lambda|mu|nu|xi|pi|rho|sigma|tau|upsilon|phi|chi|psi|omega)|Gamma|Delta|Theta|Lambda|Xi|Pi|Sigma|Phi|Psi|Omega)$/;
/** Commands whose argument is shown as it is (fonts, text, operator names). */
const TEXT_COMMANDS = new Set(['text', 'textrm', 'textit', 'textbf', 'mathrm', 'mathit', 'mathbf', 'mathsf', 'mathtt', 'mathcal', 'operatorname', 'boldsymbol', 'mbox']);
/** Sizing and spacing commands that draw nothing here. */
const SILENT = new Set(['left', 'right', 'big', 'Big', 'bigg', 'Bigg', 'displaystyle', 'textstyle', 'limits', 'nolimits']);
const ACCENTS: Record<string, string> = { hat: '\u0302', bar: '\u0304', tilde: '\u0303', vec: '\u20d7', dot: '\u0307', overline: '\u0305' };

type Token = { kind: 'command'; name: string } | { kind: 'char'; value: string };

function tokenize(tex: string): Token[] {
  const tokens: Token[] = [];
  for (let i = 0; i < tex.length; ) {
    if (tex[i] === '\\') {
      const name = /^[A-Za-z]+/.exec(tex.slice(i + 1))?.[0] ?? tex[i + 1] ?? '';
      tokens.push({ kind: 'command', name });
      i += 1 + name.length;
      // `\lambda t` is λt: TeX drops the space after a command, which a writer needs only to end
      // its name. Around an operator (`a \cdot b`) the spaces stay, for legibility.
      if (GREEK.test(name) && /^ +[\p{L}\p{N}]/u.test(tex.slice(i))) while (tex[i] === ' ') i++;
    } else {
      const char = String.fromCodePoint(tex.codePointAt(i)!);
      tokens.push({ kind: 'char', value: char });
      i += char.length;
    }
  }
  return tokens;
}

class Reader {
  at = 0;
  readonly tokens: Token[];
  constructor(tokens: Token[]) {
    this.tokens = tokens;
  }

  /** Everything up to a closing brace (or the end), converted. */
  sequence(): string {
    let out = '';
    while (this.at < this.tokens.length) {
      const token = this.tokens[this.at];
      if (token.kind === 'char' && token.value === '}') break;
      out += this.item();
    }
    return out;
  }

  /** One argument: a {group} or a single token, converted. */
  argument(): string {
    while (this.peekChar() === ' ') this.at++;
    if (this.peekChar() === '{') {
      this.at++;
      const inner = this.sequence();
      this.at++; // the closing brace
      return inner;
    }
    return this.at < this.tokens.length ? this.item() : '';
  }

  /** An optional [argument], raw text. */
  optional(): string | null {
    if (this.peekChar() !== '[') return null;
    this.at++;
    let out = '';
    while (this.at < this.tokens.length && this.peekChar() !== ']') out += this.item();
    this.at++;
    return out;
  }

  peekChar(): string | null {
    const token = this.tokens[this.at];
    return token?.kind === 'char' ? token.value : null;
  }

  item(): string {
    const token = this.tokens[this.at++];
    if (token.kind === 'char') {
      switch (token.value) {
        case '{': {
          const inner = this.sequence();
          this.at++;
          return inner;
        }
        case '^':
          return script(this.argument(), SUPERSCRIPT, '^');
        case '_':
          return script(this.argument(), SUBSCRIPT, '_');
        case '&':
          return '';
        case '~':
          return ' ';
        default:
          return token.value;
      }
    }
    return this.command(token.name);
  }

  command(name: string): string {
    if (name === 'frac' || name === 'dfrac' || name === 'tfrac') {
      const numerator = this.argument();
      const denominator = this.argument();
      return `${grouped(numerator)}/${grouped(denominator)}`;
    }
    if (name === 'sqrt') {
      const degree = this.optional();
      const radicand = this.argument();
      const root = degree === '3' ? '∛' : degree === '4' ? '∜' : degree ? `${script(degree, SUPERSCRIPT, '^')}√` : '√';
      return root + grouped(radicand);
    }
    if (TEXT_COMMANDS.has(name)) return this.argument();
    if (name in ACCENTS) return this.argument() + ACCENTS[name];
    if (SILENT.has(name)) return '';
    if (name === '\\') return '\n';
    if (name === ',' || name === ';' || name === ':' || name === ' ') return ' ';
    if (name === '!') return '';
    if (name in SYMBOLS) return SYMBOLS[name];
    // \% \{ \} \$ \_ \# \&: the character itself; an unknown command: its name, without the backslash.
    return name;
  }
}

/** A fraction's part in parentheses when it holds more than one term. */
function grouped(text: string): string {
  const trimmed = text.trim();
  return /^[\p{L}\p{N}.,'\u2032\u2070-\u209f\u00b2\u00b3\u00b9\u221a]*$/u.test(trimmed) || /^\(.*\)$/.test(trimmed) ? trimmed : `(${trimmed})`;
}

/** x^2 -> x², x_t -> xₜ; ^ or _ and the text (in parentheses if longer than one character) where Unicode has no such characters. */
function script(text: string, table: Record<string, string>, mark: string): string {
  const trimmed = text.trim();
  const chars = [...trimmed];
  if (chars.length > 0 && chars.every((c) => c in table)) return chars.map((c) => table[c]).join('');
  // A name reads as one (t_queue); an expression needs its parentheses (x_(i+1), e^(-λt)).
  const name = mark === '_' && /^[\p{L}\p{N}]+$/u.test(trimmed);
  return chars.length === 1 || name ? `${mark}${trimmed}` : `${mark}(${trimmed})`;
}

/** A TeX formula as Unicode text; spaces are collapsed, as TeX itself ignores them. */
export function texToUnicode(tex: string): string {
  const reader = new Reader(tokenize(tex));
  let out = '';
  while (reader.at < reader.tokens.length) {
    out += reader.sequence();
    reader.at++; // an unmatched closing brace
  }
  return out
    .split('\n')
    .map((line) => line.replace(/[ \t]+/g, ' ').replace(/([([]) /g, '$1').replace(/ ([)\]])/g, '$1').trim())
    .join('\n');
}
