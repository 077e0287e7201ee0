/**
 * The layering of the README's Layout section, enforced: every import of a source file of `src/` and `rest-compat/`
 * goes down a layer or sideways within its own, and no files import each other in a cycle.
 *
 * Type-only imports (`import type`, `import('…').T`) count like any other: a lower layer that names an upper layer's
 * types still has to change when that layer does, and a cycle of types is still a cycle a reader has to untangle.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');

/** The layers, bottom first; a file's layer is the first whose test its repository path passes. */
const LAYERS: { name: string; holds: (path: string) => boolean }[] = [
  // The dashboard runs in the browser: the lowest layer, so it imports no module of the service (only the API).
  { name: 'dashboard', holds: (p) => p.startsWith('src/dashboard/') },
  { name: 'config/db', holds: (p) => /^src\/(config|db|generated)\//.test(p) },
  { name: 'domain', holds: (p) => p.startsWith('src/domain/') },
  { name: 'events', holds: (p) => p.startsWith('src/events/') },
  { name: 'graphql', holds: (p) => p.startsWith('src/graphql/') },
  { name: 'rest-compat', holds: (p) => p.startsWith('rest-compat/') },
  { name: 'http', holds: (p) => /^src\/(http|cli)\//.test(p) || p === 'src/main.ts' },
];

/** The index into LAYERS of a file, or -1 for a file outside every layer (itself a failure). */
function layerOf(path: string): number {
  return LAYERS.findIndex((l) => l.holds(path));
}

/** The module specifiers a TypeScript source imports: static imports and re-exports, `import('…')` with a literal, `import x = require('…')`. */
function importsOf(fileName: string, text: string): string[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      found.push(node.moduleSpecifier.text);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0] && ts.isStringLiteralLike(node.arguments[0])) {
      found.push(node.arguments[0].text);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      found.push(node.argument.literal.text);
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference) && ts.isStringLiteral(node.moduleReference.expression)) {
      found.push(node.moduleReference.expression.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The repository path a relative specifier names (with `.ts`, `.js`→`.ts`, or `/index.ts`), or null for a package. */
function resolveRelative(fromPath: string, specifier: string): string | null {
  if (!specifier.startsWith('.')) return null;
  const base = join(dirname(fromPath), specifier);
  const candidates = [base, base.replace(/\.(m|c)?js$/, '.ts'), `${base}.ts`, join(base, 'index.ts')];
  const hit = candidates.find((c) => existsSync(join(ROOT, c)) && statSync(join(ROOT, c)).isFile());
  return hit ?? base;
}

/** An import graph: each file's repository path → the repository paths it imports. */
type ImportGraph = Map<string, string[]>;

/** Reads every `.ts` file under the given folders (not the generated Prisma client, which nothing here maintains). */
function readImportGraph(folders: string[]): ImportGraph {
  const graph: ImportGraph = new Map();
  const walk = (dir: string): void => {
    for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) {
        if (path !== 'src/generated') walk(path);
      } else if (entry.name.endsWith('.ts')) {
        const targets = importsOf(path, readFileSync(join(ROOT, path), 'utf8'))
          .map((s) => resolveRelative(path, s))
          .filter((t): t is string => t !== null);
        graph.set(path, [...new Set(targets)]);
      }
    }
  };
  for (const folder of folders) walk(folder);
  return graph;
}

/** Each import that runs up a layer, and each file in no layer, as a line naming both ends. */
function layerViolations(graph: ImportGraph): string[] {
  const found: string[] = [];
  for (const [from, targets] of graph) {
    const own = layerOf(from);
    if (own < 0) {
      found.push(`${from} is in no layer (add it to LAYERS in test/unit/layering.test.ts and to the README's Layout)`);
      continue;
    }
    for (const to of targets) {
      const theirs = layerOf(to);
      if (theirs > own) found.push(`${from} (${LAYERS[own].name}) imports ${to} (${LAYERS[theirs].name}), a layer above it`);
      else if (theirs < 0) found.push(`${from} imports ${to}, which is in no layer`);
    }
  }
  return found.sort();
}

/**
 * Each import cycle, as its files in import order (`a → b → c → a`): one shortest cycle per strongly connected group of
 * files (Tarjan), which is the one to break first; the group's other files are listed after it.
 */
function importCycles(graph: ImportGraph): string[] {
  let index = 0;
  const order = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];
  const connect = (v: string): void => {
    order.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!order.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, order.get(w)!));
    }
    if (low.get(v) === order.get(v)) {
      const group: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        group.push(w);
      } while (w !== v);
      if (group.length > 1 || (graph.get(v) ?? []).includes(v)) groups.push(group.sort());
    }
  };
  for (const v of [...graph.keys()].sort()) if (!order.has(v)) connect(v);
  return groups.map((group) => {
    const cycle = shortestCycle(graph, group);
    const others = group.filter((f) => !cycle.includes(f));
    return `${[...cycle, cycle[0]].join(' → ')}${others.length ? ` (with ${others.join(', ')})` : ''}`;
  });
}

/** The shortest cycle through the group's first file, by breadth-first search inside the group. */
function shortestCycle(graph: ImportGraph, group: string[]): string[] {
  const inGroup = new Set(group);
  const start = group[0];
  const previous = new Map<string, string>();
  const queue = [start];
  while (queue.length) {
    const v = queue.shift()!;
    for (const w of graph.get(v) ?? []) {
      if (!inGroup.has(w)) continue;
      if (w === start) {
        const path = [v];
        while (path[0] !== start) path.unshift(previous.get(path[0])!);
        return path;
      }
      if (!previous.has(w)) {
        previous.set(w, v);
        queue.push(w);
      }
    }
  }
  return group;
}

describe('the checker itself (so the test below can fail)', () => {
  it('reads static, re-exported, type-only and dynamic imports, and skips specifiers in comments and strings', () => {
    const text = [
      `import a from './a.ts';`,
      `import type { B } from '../b.ts';`,
      `export { c } from './c.ts';`,
      `export * from './d.ts';`,
      `const e = await import('./e.ts');`,
      `type F = import('./f.ts').F;`,
      `// import g from './g.ts';`,
      `const s = "import h from './h.ts'";`,
      `import pino from 'pino';`,
    ].join('\n');
    expect(importsOf('x.ts', text)).toEqual(['./a.ts', '../b.ts', './c.ts', './d.ts', './e.ts', './f.ts', 'pino']);
  });

  it('places each file in its layer', () => {
    const names = (paths: string[]) => paths.map((p) => LAYERS[layerOf(p)]?.name ?? 'none');
    expect(
      names(['src/config/config.ts', 'src/db/database.ts', 'src/generated/prisma/client.ts', 'src/domain/errors.ts', 'src/events/loop.ts', 'src/graphql/builder.ts', 'rest-compat/shared/http.ts', 'src/http/app.ts', 'src/cli/main.ts', 'src/main.ts', 'src/other.ts']),
    ).toEqual(['config/db', 'config/db', 'config/db', 'domain', 'events', 'graphql', 'rest-compat', 'http', 'http', 'http', 'none']);
  });

  it('names an import that runs up a layer, and accepts one going down or sideways', () => {
    const graph: ImportGraph = new Map([
      ['src/domain/a.ts', ['src/db/database.ts', 'src/domain/b.ts', 'src/graphql/builder.ts']],
      ['src/events/w.ts', ['rest-compat/shared/webhook-payloads.ts']],
      ['src/http/app.ts', ['rest-compat/v1/handler.ts', 'src/graphql/builder.ts', 'src/config/config.ts']],
      ['src/stray.ts', []],
    ]);
    expect(layerViolations(graph)).toEqual([
      'src/domain/a.ts (domain) imports src/graphql/builder.ts (graphql), a layer above it',
      'src/events/w.ts (events) imports rest-compat/shared/webhook-payloads.ts (rest-compat), a layer above it',
      `src/stray.ts is in no layer (add it to LAYERS in test/unit/layering.test.ts and to the README's Layout)`,
    ]);
  });

  it('names each cycle by its files, the shortest first, and not an acyclic graph', () => {
    const graph: ImportGraph = new Map([
      ['a', ['b']],
      ['b', ['c', 'd']],
      ['c', ['a']],
      ['d', ['b']],
      ['e', ['e']],
      ['f', ['a']],
    ]);
    expect(importCycles(graph)).toEqual(['a → b → c → a (with d)', 'e → e']);
    expect(importCycles(new Map([['a', ['b', 'c']], ['b', ['c']], ['c', []]]))).toEqual([]);
  });
});

describe('the layering of src/ and rest-compat/ (README, Layout)', () => {
  const graph = readImportGraph(['src', 'rest-compat']);

  it('reads the whole tree', () => {
    expect(graph.size).toBeGreaterThan(50);
    expect(graph.get('src/http/app.ts')).toContain('src/config/config.ts');
  });

  it('every import goes down a layer or stays in its own: config/db → domain → events → graphql → rest-compat → http/main/cli', () => {
    const found = layerViolations(graph);
    expect(found, `imports that run back up a layer:\n  ${found.join('\n  ')}\n`).toEqual([]);
  });

  it('no files import each other in a cycle', () => {
    const found = importCycles(graph);
    expect(found, `import cycles:\n  ${found.join('\n  ')}\n`).toEqual([]);
  });

  it('every relative import names a file that exists', () => {
    const missing = [...graph].flatMap(([from, targets]) => targets.filter((t) => !existsSync(join(ROOT, t))).map((t) => `${from} imports ${t}`));
    expect(missing).toEqual([]);
  });
});
