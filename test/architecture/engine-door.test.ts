// The engine's layers (#15): entered through src/engine/index.ts alone (which exports only what
// outside code imports), importing nothing outside itself, free of file import cycles (type-only
// imports included), and with file names of its own, so a name says which side of the door a
// file is on.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cycles, importGraph, srcRoot } from './import-graph.ts';

const edges = importGraph();
const inEngine = (file: string) => file.startsWith('engine/');

describe('the engine', () => {
  it('is imported from outside through engine/index.ts only', () => {
    const past = edges.filter((e) => !inEngine(e.from) && inEngine(e.to) && e.to !== 'engine/index.ts');
    expect(past.map((e) => `${e.from} > ${e.to}`)).toEqual([]);
  });

  it('exports from index.ts only what outside code imports', () => {
    const names = (list: string) => list.split(',').map((n) => n.trim().replace(/^type /, '').split(' as ')[0]).filter(Boolean);
    const exported = [...readFileSync(join(srcRoot, 'engine/index.ts'), 'utf8').matchAll(/^export (?:type )?\{([^}]*)\}/gm)].flatMap((m) => names(m[1]));
    const outside = [...new Set(edges.filter((e) => !inEngine(e.from) && e.to === 'engine/index.ts').map((e) => e.from))];
    const used = new Set<string>();
    for (const file of outside) {
      const text = readFileSync(join(srcRoot, file), 'utf8');
      // Static imports, and the destructured names of a dynamic import.
      for (const m of text.matchAll(/import (?:type )?\{([^}]*)\} from '[^']*engine\/index\.ts'/g)) names(m[1]).forEach((n) => used.add(n));
      for (const m of text.matchAll(/\{([^{}]*)\} = await import\('[^']*engine\/index\.ts'\)/g)) names(m[1]).forEach((n) => used.add(n));
    }
    expect(exported.filter((name) => !used.has(name))).toEqual([]);
  });

  it('imports nothing outside itself', () => {
    const out = edges.filter((e) => inEngine(e.from) && !inEngine(e.to));
    expect(out.map((e) => `${e.from} > ${e.to}`)).toEqual([]);
  });

  it('has no file import cycles', () => {
    expect(cycles(edges.filter((e) => inEngine(e.from) && inEngine(e.to)))).toEqual([]);
  });

  it('shares no file name with the rest of src/', () => {
    const files = readdirSync(srcRoot, { recursive: true, withFileTypes: true }).filter((f) => f.isFile() && /\.(ts|tsx|js)$/.test(f.name));
    const engineDir = `${srcRoot}/engine`;
    const inside = new Set(files.filter((f) => f.parentPath.startsWith(engineDir)).map((f) => f.name));
    const outside = new Set(files.filter((f) => !f.parentPath.startsWith(engineDir)).map((f) => f.name));
    // srs/scheduler.ts is being renamed on the kb side of #15; until then the engine's scheduler keeps its name.
    const shared = [...inside].filter((name) => outside.has(name) && name !== 'scheduler.ts');
    expect(shared).toEqual([]);
  });
});
