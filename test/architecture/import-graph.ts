// The import graph of src/, type-only imports included: the layer test reads it, and so can a
// person (`npx tsx test/architecture/import-graph.ts` prints every cross-folder edge).
import { readdirSync, readFileSync, existsSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "@babel/parser";

export const srcRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../../src");

export interface ImportEdge {
  from: string; // path relative to src/, e.g. "kb/walk.ts"
  to: string;
  typeOnly: boolean;
}

const sourceFile = /\.(ts|tsx|js|mjs)$/;

function listSources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return listSources(path);
    return sourceFile.test(entry.name) && !entry.name.endsWith(".d.ts") ? [path] : [];
  });
}

/** Resolves a relative specifier the way tsx does: the written extension, or .ts for .js. */
function resolveLocal(fromFile: string, specifier: string): string | undefined {
  const base = resolve(dirname(fromFile), specifier);
  const candidates = [base, base.replace(/\.js$/, ".ts"), base.replace(/\.js$/, ".tsx"), `${base}.ts`, `${base}.tsx`, join(base, "index.ts")];
  return candidates.find((path) => existsSync(path) && statSync(path).isFile());
}

function specifiersOf(code: string, file: string): { specifier: string; typeOnly: boolean }[] {
  const ast = parse(code, {
    sourceType: "module",
    plugins: [["typescript", {}], ...(file.endsWith("x") ? (["jsx"] as const) : [])],
  });
  const found: { specifier: string; typeOnly: boolean }[] = [];
  const visit = (node: unknown): void => {
    if (!node || typeof node !== "object") return;
    if (Array.isArray(node)) return node.forEach(visit);
    const n = node as Record<string, any>;
    if ((n.type === "ImportDeclaration" || n.type === "ExportNamedDeclaration" || n.type === "ExportAllDeclaration") && n.source) {
      const allTypes = n.importKind === "type" || n.exportKind === "type" ||
        (n.specifiers?.length > 0 && n.specifiers.every((s: any) => s.importKind === "type" || s.exportKind === "type"));
      found.push({ specifier: n.source.value, typeOnly: allTypes });
    } else if (n.type === "ImportExpression" && n.source?.type === "StringLiteral") {
      found.push({ specifier: n.source.value, typeOnly: false });
    } else if (n.type === "TSImportType" && n.argument?.type === "StringLiteral") {
      found.push({ specifier: n.argument.value, typeOnly: true });
    }
    for (const key of Object.keys(n)) if (key !== "loc" && key !== "start" && key !== "end") visit(n[key]);
  };
  visit(ast.program);
  return found;
}

export function importGraph(root = srcRoot): ImportEdge[] {
  return listSources(root).flatMap((file) =>
    specifiersOf(readFileSync(file, "utf8"), file)
      .filter(({ specifier }) => specifier.startsWith("."))
      .flatMap(({ specifier, typeOnly }) => {
        const target = resolveLocal(file, specifier);
        if (!target) throw new Error(`${relative(root, file)}: cannot resolve import "${specifier}"`);
        // package.json (the version) and other files outside src/ are data, not a layer.
        if (relative(root, target).startsWith('..') || !sourceFile.test(target)) return [];
        return [{ from: relative(root, file), to: relative(root, target), typeOnly }];
      }),
  );
}

/** Strongly connected components with more than one file, or a file importing itself (Tarjan). */
export function cycles(edges: { from: string; to: string }[]): string[][] {
  const next = new Map<string, string[]>();
  for (const { from, to } of edges) {
    next.set(from, [...(next.get(from) ?? []), to]);
    if (!next.has(to)) next.set(to, []);
  }
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let counter = 0;
  const connect = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter++);
    stack.push(node);
    onStack.add(node);
    for (const to of next.get(node)!) {
      if (!index.has(to)) {
        connect(to);
        low.set(node, Math.min(low.get(node)!, low.get(to)!));
      } else if (onStack.has(to)) low.set(node, Math.min(low.get(node)!, index.get(to)!));
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1 || next.get(node)!.includes(node)) found.push(component.sort());
    }
  };
  for (const node of next.keys()) if (!index.has(node)) connect(node);
  return found;
}

export const folderOf = (file: string): string => (file.includes("/") ? file.split("/")[0]! : ".");

/** The layers of ARCHITECTURE.md, top to bottom: a folder may import those after it, never one before it. */
export const LAYERS = ["cli", "serve", "ui", "app", "kb", "lab", "srs", "store", "model", "engine"] as const;

/** A file's layer, 0 at the top; -1 for a file outside every layer. */
export const layerRank = (file: string): number => LAYERS.indexOf(folderOf(file) as (typeof LAYERS)[number]);

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const edges = importGraph();
  const byFolders = new Map<string, string[]>();
  for (const edge of edges) {
    const key = `${folderOf(edge.from)} -> ${folderOf(edge.to)}`;
    if (folderOf(edge.from) !== folderOf(edge.to)) byFolders.set(key, [...(byFolders.get(key) ?? []), `${edge.from} > ${edge.to}${edge.typeOnly ? " (type)" : ""}`]);
  }
  for (const [key, list] of [...byFolders].sort()) console.log(`${key}  ${list.length}\n    ${list.join("\n    ")}`);
  console.log("file cycles:", cycles(edges));
  console.log("folder cycles:", cycles(edges.map((e) => ({ from: folderOf(e.from), to: folderOf(e.to) })).filter((e) => e.from !== e.to)));
}
