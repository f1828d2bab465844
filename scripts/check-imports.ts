// `node --import tsx scripts/check-imports.ts` (part of `npm run lint`): the import graph of
// the code's own .ts files has no cycle and no arrow pointing up a layer. Exits 1 naming each
// cycle as a path (a → b → a) and each upward arrow as file → file with the rule it breaks.
//
// Every relative import counts, `import type` and `export type … from` included: a type
// import is still an arrow between two files (the lower one then knows the upper one's
// shapes, and a type-only cycle is a cycle for whoever splits or moves one of its files).
// Dynamic `import('./x.js')` and `import('./x.js').T` type references count too. Package
// imports (no leading `.`) are not ours and are not checked.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, posix, relative, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';

/** The folders whose .ts files make the graph; tests, bench, scripts, dist are outside it. */
export const ROOTS = ['api', 'workers', 'dashboard', 'http', 'src', 'cli', 'client'] as const;

/** One import in a file, as written. */
export interface ImportRef {
  specifier: string;
  typeOnly: boolean;
  line: number;
}

/** One arrow of the graph, between repo-relative paths (`src/domain/plan/slice.ts`). */
export interface ImportEdge {
  from: string;
  to: string;
  typeOnly: boolean;
  line: number;
}

/** A file under `from` may not import a file under any of `forbidden` (folder prefixes). */
export interface LayerRule {
  from: string;
  forbidden: readonly string[];
  why: string;
}

/**
 * Arrows point down: the entrypoints (api/, workers/, dashboard/, cli/)
 * over http/ (the wire format api/ and dashboard/ share), over src/; inside src/,
 * src/services over src/storage and src/callback, over src/domain, over src/lib. src/config, setting-specs,
 * errors, observability, security and core are not layered here.
 */
export const LAYER_RULES: readonly LayerRule[] = [
  {
    from: 'src/',
    forbidden: ['http/', 'api/', 'workers/', 'dashboard/', 'cli/'],
    why: 'src/ is the core the entrypoints are built on, and holds no HTTP',
  },
  {
    from: 'http/',
    forbidden: ['api/', 'workers/', 'dashboard/', 'cli/'],
    why: 'the HTTP wire format sits under the api and the dashboard that share it',
  },
  {
    from: 'dashboard/',
    forbidden: ['api/', 'workers/'],
    why: 'the dashboard sits beside the API, not on it',
  },
  {
    from: 'api/',
    forbidden: ['workers/', 'dashboard/'],
    why: 'the API sits beside the workers and the dashboard',
  },
  {
    from: 'src/domain/',
    forbidden: ['src/services/', 'src/storage/', 'src/callback/'],
    why: 'src/domain is pure logic under every other layer',
  },
  {
    from: 'src/storage/',
    forbidden: ['src/services/'],
    why: 'storage sits under the services that use it',
  },
  {
    from: 'src/callback/',
    forbidden: ['src/services/'],
    why: 'the callback sits under the services that use it',
  },
  {
    from: 'src/lib/',
    forbidden: [
      'src/domain/',
      'src/services/',
      'src/storage/',
      'src/callback/',
      'src/observability/',
      'src/security/',
      'src/config',
      'src/setting-specs',
      'src/core',
      'src/errors',
      'src/shutdown',
    ],
    why: 'src/lib holds generic helpers that know nothing of xtimer, under every other layer',
  },
];

/** An edge that breaks a rule. */
export interface UpwardArrow {
  edge: ImportEdge;
  rule: LayerRule;
  target: string;
}

/** The relative imports and re-exports of one file's source, in source order. */
export function parseImports(source: string, fileName = 'file.ts'): ImportRef[] {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const refs: ImportRef[] = [];
  const add = (literal: ts.Node, typeOnly: boolean): void => {
    if (!ts.isStringLiteralLike(literal) || !literal.text.startsWith('.')) return;
    const line = file.getLineAndCharacterOfPosition(literal.getStart(file)).line + 1;
    refs.push({ specifier: literal.text, typeOnly, line });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node)) {
      add(node.moduleSpecifier, node.importClause?.isTypeOnly ?? false);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier) {
      add(node.moduleSpecifier, node.isTypeOnly);
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      add(node.moduleReference.expression, node.isTypeOnly);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [first] = node.arguments;
      if (first) add(first, false);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      add(node.argument.literal, true);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return refs;
}

const EMITTED_TO_SOURCE: Readonly<Record<string, string>> = { '.js': '.ts', '.mjs': '.mts', '.cjs': '.cts' };

/**
 * The repo-relative source file a specifier names, from the file `from` (repo-relative,
 * `/`-separated): `./x.js` → `x.ts` (NodeNext specifiers name the emitted file). `null` for
 * what is not code (`./data.json`); `undefined` for code that `exists` does not find.
 */
export function resolveSpecifier(
  from: string,
  specifier: string,
  exists: (path: string) => boolean,
): string | null | undefined {
  const ext = posix.extname(specifier);
  const sourceExt = EMITTED_TO_SOURCE[ext];
  if (sourceExt === undefined) return ext === '' ? undefined : null;
  const target = posix.normalize(
    posix.join(posix.dirname(from), specifier.slice(0, -ext.length) + sourceExt),
  );
  return exists(target) ? target : undefined;
}

/** The adjacency of a list of edges: each file's targets, sorted, without repeats. */
export function adjacency(edges: readonly ImportEdge[]): Map<string, string[]> {
  const graph = new Map<string, Set<string>>();
  for (const { from, to } of edges) {
    if (!graph.has(from)) graph.set(from, new Set());
    if (!graph.has(to)) graph.set(to, new Set());
    graph.get(from)!.add(to);
  }
  return new Map([...graph].sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => [k, [...v].sort()]));
}

/** The strongly connected components of a graph (Tarjan, iterative), each sorted. */
export function stronglyConnected(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const components: string[][] = [];
  let next = 0;
  for (const root of graph.keys()) {
    if (index.has(root)) continue;
    // Each frame is a node and the position of the next successor to look at.
    const frames: Array<{ node: string; at: number }> = [{ node: root, at: 0 }];
    index.set(root, next);
    low.set(root, next++);
    stack.push(root);
    onStack.add(root);
    while (frames.length > 0) {
      const frame = frames[frames.length - 1]!;
      const successors = graph.get(frame.node) ?? [];
      if (frame.at < successors.length) {
        const succ = successors[frame.at++]!;
        if (!index.has(succ)) {
          index.set(succ, next);
          low.set(succ, next++);
          stack.push(succ);
          onStack.add(succ);
          frames.push({ node: succ, at: 0 });
        } else if (onStack.has(succ)) {
          low.set(frame.node, Math.min(low.get(frame.node)!, index.get(succ)!));
        }
        continue;
      }
      frames.pop();
      const parent = frames[frames.length - 1];
      if (parent) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(frame.node)!));
      if (low.get(frame.node) === index.get(frame.node)) {
        const component: string[] = [];
        let member: string;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          component.push(member);
        } while (member !== frame.node);
        components.push(component.sort());
      }
    }
  }
  return components;
}

/** The shortest path from `start` back to itself inside `members`, as [start, …, start]. */
function shortestCycleThrough(
  start: string,
  graph: ReadonlyMap<string, readonly string[]>,
  members: ReadonlySet<string>,
): string[] | undefined {
  const previous = new Map<string, string>();
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    const node = queue[i]!;
    for (const succ of graph.get(node) ?? []) {
      if (!members.has(succ)) continue;
      if (succ === start) {
        const path = [start];
        for (let at: string | undefined = node; at !== start && at !== undefined; at = previous.get(at)) {
          path.push(at);
        }
        return [...path, start].reverse();
      }
      if (previous.has(succ)) continue;
      previous.set(succ, node);
      queue.push(succ);
    }
  }
  return undefined;
}

/**
 * The import cycles, as paths [a, b, …, a]: for every file that lies on a cycle, the
 * shortest cycle through it, each cycle once (rotated to start at its first file by name).
 */
export function findCycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const cycles = new Map<string, string[]>();
  for (const component of stronglyConnected(graph)) {
    const members = new Set(component);
    const selfLoop = component.length === 1 && (graph.get(component[0]!) ?? []).includes(component[0]!);
    if (component.length === 1 && !selfLoop) continue;
    for (const file of component) {
      const cycle = shortestCycleThrough(file, graph, members);
      if (!cycle) continue;
      const ring = cycle.slice(0, -1);
      const first = ring.indexOf([...ring].sort()[0]!);
      const rotated = [...ring.slice(first), ...ring.slice(0, first)];
      const path = [...rotated, rotated[0]!];
      cycles.set(path.join('\n'), path);
    }
  }
  return [...cycles.values()].sort((a, b) => a.join('\n').localeCompare(b.join('\n')));
}

/** The edges that point up a layer, each with the first rule it breaks. */
export function findUpwardArrows(
  edges: readonly ImportEdge[],
  rules: readonly LayerRule[] = LAYER_RULES,
): UpwardArrow[] {
  const arrows: UpwardArrow[] = [];
  for (const edge of edges) {
    for (const rule of rules) {
      if (!edge.from.startsWith(rule.from)) continue;
      const target = rule.forbidden.find((prefix) => edge.to.startsWith(prefix));
      if (target !== undefined) {
        arrows.push({ edge, rule, target });
        break;
      }
    }
  }
  return arrows;
}

/** The .ts files under the roots, repo-relative, skipping tests, declarations and build output. */
export function sourceFiles(repo: string, roots: readonly string[] = ROOTS): string[] {
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name === 'node_modules' || entry.name === 'dist') continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (/\.(m|c)?ts$/.test(entry.name) && !/\.d\.(m|c)?ts$|\.test\.ts$/.test(entry.name)) {
        files.push(relative(repo, path).split(sep).join('/'));
      }
    }
  };
  for (const root of roots) if (existsSync(join(repo, root))) walk(join(repo, root));
  return files.sort();
}

/** The graph of the repo's own imports, and the specifiers that name no file. */
export function importGraph(repo: string): { edges: ImportEdge[]; unresolved: string[] } {
  const edges: ImportEdge[] = [];
  const unresolved: string[] = [];
  const exists = (path: string): boolean => existsSync(join(repo, path));
  for (const file of sourceFiles(repo)) {
    for (const ref of parseImports(readFileSync(join(repo, file), 'utf8'), file)) {
      const to = resolveSpecifier(file, ref.specifier, exists);
      if (to === undefined) unresolved.push(`${file}:${ref.line}: '${ref.specifier}' names no file`);
      else if (to !== null) edges.push({ from: file, to, typeOnly: ref.typeOnly, line: ref.line });
    }
  }
  return { edges, unresolved };
}

/** The report's lines; empty when the graph is clean. */
export function check(edges: readonly ImportEdge[], unresolved: readonly string[] = []): string[] {
  const lines: string[] = [...unresolved];
  for (const cycle of findCycles(adjacency(edges))) lines.push(`import cycle: ${cycle.join(' → ')}`);
  for (const { edge, rule, target } of findUpwardArrows(edges)) {
    const kind = edge.typeOnly ? ' (type-only)' : '';
    lines.push(
      `upward arrow: ${edge.from}:${edge.line} → ${edge.to}${kind}: ${rule.from} must not import ${target} (${rule.why})`,
    );
  }
  return lines;
}

function main(): void {
  const repo = dirname(dirname(fileURLToPath(import.meta.url)));
  const { edges, unresolved } = importGraph(repo);
  const problems = check(edges, unresolved);
  if (problems.length > 0) {
    for (const line of problems) console.error(line);
    console.error(`check-imports: ${problems.length} problem(s) in ${edges.length} imports`);
    process.exitCode = 1;
    return;
  }
  const files = new Set(edges.flatMap((e) => [e.from, e.to])).size;
  console.error(`check-imports: ${edges.length} imports between ${files} files, no cycle, no upward arrow`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) main();
