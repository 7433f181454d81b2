// Finds the ```kb-calc block of a note or card and parses it (one block per card).
import type { Code, RootContent } from 'mdast';
import { parseCalc } from './calc.ts';
import { endOffset, startLine, startOffset } from './markdown.ts';
import type { CalcSpec, Diagnostic, KbPath } from '../model/knowledge-base.ts';

export interface CalcBlocks {
  spec: CalcSpec | null;
  diagnostics: Diagnostic[];
  /**
   * The card's kb-calc block does not parse: the file is skipped (its cards stay as last
   * scanned), as with any error that leaves a card unusable. Kept, the card would ask its
   * question with raw {placeholders} and no answer.
   */
  broken: boolean;
  /** Source ranges of the blocks, to keep them out of the answer shown on reveal. */
  ranges: Array<[number, number]>;
}

export const CALC_LANGUAGE = 'kb-calc';

export function isCalcBlock(node: RootContent): node is Code {
  return node.type === 'code' && node.lang === CALC_LANGUAGE;
}

/** `bodyLine` is the file line of the body's first line, so diagnostics carry file lines. */
export function parseCalcBlocks(file: KbPath, nodes: RootContent[], bodyLine: number, body?: string): CalcBlocks {
  const blocks = nodes.filter(isCalcBlock);
  const diagnostics: Diagnostic[] = [];
  let spec: CalcSpec | null = null;
  let broken = false;
  blocks.forEach((block, index) => {
    const fenceLine = startLine(block) + bodyLine - 1;
    // Never closed: Markdown runs the block to the end of the file, and its YAML error would name
    // a line of some later card instead.
    if (index === 0 && body !== undefined && !fenceClosed(body.slice(startOffset(block), endOffset(block)))) {
      diagnostics.push({ severity: 'error', file, line: fenceLine, message: 'kb-calc block opened here is never closed (no ``` line after it); file skipped' });
      broken = true;
      return;
    }
    if (index === 0) {
      const parsed = parseCalc(block.value, fenceLine, file);
      spec = parsed.spec;
      broken = spec === null;
      diagnostics.push(...parsed.diagnostics.map((d) => (broken && d.severity === 'error' ? { ...d, message: `${d.message}; file skipped` } : d)));
    } else {
      diagnostics.push({ severity: 'error', file, line: fenceLine, message: `kb-calc: a card takes one kb-calc block; this one is ignored (the first is on line ${startLine(blocks[0]) + bodyLine - 1})` });
    }
  });
  return { spec, diagnostics, broken, ranges: blocks.map((block) => [startOffset(block), endOffset(block)]) };
}

/** Whether a fenced block's source ends with a closing fence line (after its opening line). */
function fenceClosed(source: string): boolean {
  const afterOpening = source.trimEnd().split('\n').slice(1).join('\n');
  return /(^|\n)[ \t]*(`{3,}|~{3,})[ \t]*$/.test(afterOpening);
}
