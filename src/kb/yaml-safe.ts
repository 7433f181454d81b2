// YAML as kb reads it: the core schema, unique keys, bounded aliases, and no custom tags
// (`!!js/function` and friends are reported as errors, never resolved or run).
import { parseDocument, type Document } from 'yaml';

/** 1-based line of an offset; CRLF, LF and a lone CR each end a line (as in Markdown and editors). */
export function lineAt(text: string, offset: number): number {
  let line = 1;
  const end = Math.min(offset, text.length);
  for (let i = 0; i < end; i++) {
    const code = text.charCodeAt(i);
    if (code === 10 || (code === 13 && text.charCodeAt(i + 1) !== 10)) line++;
  }
  return line;
}

/** Parses YAML the only way kb does: core schema, unique keys, bounded aliases, no custom tags. */
export function parseYaml(source: string): Document.Parsed {
  return parseDocument(source, {
    schema: 'core',
    uniqueKeys: true,
    prettyErrors: false,
    strict: true,
  });
}

/** Problems of a YAML document; unresolved (custom) tags are errors, never resolved or run. */
export function yamlProblems(doc: Document.Parsed, source: string): Array<{ line: number; message: string; severity: 'error' | 'warning' }> {
  const problems: Array<{ line: number; message: string; severity: 'error' | 'warning' }> = [];
  for (const error of doc.errors) {
    problems.push({ line: error.linePos?.[0].line ?? lineAt(source, error.pos[0]), message: firstLine(error.message), severity: 'error' });
  }
  for (const warning of doc.warnings) {
    const isTag = warning.code === 'TAG_RESOLVE_FAILED';
    problems.push({
      line: warning.linePos?.[0].line ?? lineAt(source, warning.pos[0]),
      message: isTag ? `${firstLine(warning.message)} (custom YAML tags are not supported and never executed)` : firstLine(warning.message),
      severity: isTag ? 'error' : 'warning',
    });
  }
  return problems;
}

function firstLine(message: string): string {
  return message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '');
}

