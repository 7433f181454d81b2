// The layers of ARCHITECTURE.md, enforced: each folder of src/ imports only folders below it,
// no file imports itself back through others (type-only imports count), srs does no I/O of
// the store's (row types only), and the engine is entered through its index.ts alone, which
// exports only what outside code imports. No two files share a name, so a name says where a
// file is.
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cycles, folderOf, importGraph, layerRank as rank, srcRoot, type ImportEdge } from './import-graph.ts';

const edges = importGraph();

function listFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? listFiles(join(dir, entry.name)) : [join(dir, entry.name)],
  );
}

const show = (list: ImportEdge[]) => list.map((edge) => `${edge.from} > ${edge.to}${edge.typeOnly ? ' (type)' : ''}`);

describe('one-way layers', () => {
  it('every file of src/ lives in a layer', () => {
    expect(edges.filter((edge) => rank(edge.from) < 0 || rank(edge.to) < 0).map((edge) => edge.from)).toEqual([]);
  });

  it('each folder imports only the folders below it', () => {
    expect(show(edges.filter((edge) => rank(edge.to) < rank(edge.from)))).toEqual([]);
  });

  it('no import cycle between files, type-only imports included', () => {
    expect(cycles(edges)).toEqual([]);
  });

  it('srs reads the store\'s row types, never the store itself', () => {
    expect(show(edges.filter((edge) => folderOf(edge.from) === 'srs' && folderOf(edge.to) === 'store' && !edge.typeOnly))).toEqual([]);
  });

  it('outside src/engine, only engine/index.ts is imported', () => {
    expect(show(edges.filter((edge) => folderOf(edge.from) !== 'engine' && folderOf(edge.to) === 'engine' && edge.to !== 'engine/index.ts'))).toEqual([]);
  });

  it('engine/index.ts exports only what outside code imports', () => {
    const names = (list: string) => list.split(',').map((n) => n.trim().replace(/^type /, '').split(' as ')[0]).filter(Boolean);
    const exported = [...readFileSync(join(srcRoot, 'engine/index.ts'), 'utf8').matchAll(/^export (?:type )?\{([^}]*)\}/gm)].flatMap((m) => names(m[1]!));
    const outside = [...new Set(edges.filter((e) => folderOf(e.from) !== 'engine' && e.to === 'engine/index.ts').map((e) => e.from))];
    const used = new Set<string>();
    for (const file of outside) {
      const text = readFileSync(join(srcRoot, file), 'utf8');
      // Static imports, and the destructured names of a dynamic import.
      for (const m of text.matchAll(/import (?:type )?\{([^}]*)\} from '[^']*engine\/index\.ts'/g)) names(m[1]!).forEach((n) => used.add(n));
      for (const m of text.matchAll(/\{([^{}]*)\} = await import\('[^']*engine\/index\.ts'\)/g)) names(m[1]!).forEach((n) => used.add(n));
    }
    expect(exported.filter((name) => !used.has(name))).toEqual([]);
  });

  it('the engine imports nothing from the KB side', () => {
    expect(show(edges.filter((edge) => folderOf(edge.from) === 'engine' && folderOf(edge.to) !== 'engine'))).toEqual([]);
  });

  it('no two source files share a name', () => {
    const byName = new Map<string, string[]>();
    for (const file of listFiles(srcRoot).filter((path) => /\.(ts|tsx|js)$/.test(path))) {
      byName.set(basename(file), [...(byName.get(basename(file)) ?? []), file.slice(srcRoot.length + 1)]);
    }
    expect([...byName.values()].filter((files) => files.length > 1)).toEqual([]);
  });

  it('the checker sees a cycle and an upward import when there is one', () => {
    const planted: ImportEdge[] = [
      { from: 'store/a.ts', to: 'kb/b.ts', typeOnly: true },
      { from: 'kb/b.ts', to: 'store/a.ts', typeOnly: false },
    ];
    expect(cycles(planted)).toEqual([['kb/b.ts', 'store/a.ts']]);
    expect(planted.filter((edge) => rank(edge.to) < rank(edge.from)).map((edge) => edge.from)).toEqual(['store/a.ts']);
  });
});
