// `npm run lint` (after biome): the import graph of our own code has no cycle and no arrow
// that points up or sideways between the rooms (ARCHITECTURE.md, "Rooms"). Run alone as
// `node --import tsx scripts/check-imports.ts [repo]`.
// A file-level cycle or a forbidden arrow prints the offending files and exits 1.
//
// Imports are read from the source text: static `import … from`, `export … from`, bare
// `import '…'` and dynamic `import('…')`, type-only ones included (a type cycle is a
// design cycle too). Only relative specifiers are followed; packages are not ours.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The folders whose code is checked (tests and benches may reach anywhere, but must not loop). */
export const ROOTS = ['src', 'http', 'api', 'dashboard', 'workers', 'client', 'cli', 'test', 'bench'];

/**
 * The arrows that must not exist: a file under `from` must not import one under any of
 * `to`, unless it is one of `except` (a composition root). Paths are repo-relative with
 * forward slashes; a rule's folder matches itself and everything below it.
 */
export interface ImportRule {
  name: string;
  /** Whose imports the rule governs: files below any of these folders. */
  from: readonly string[];
  /** What they must not import: files below any of these… */
  to: readonly string[];
  /** …unless below one of these. */
  allow?: readonly string[];
  /** Files of `from` the rule leaves alone (a composition root). */
  except?: readonly string[];
}

export const RULES: readonly ImportRule[] = [
  {
    name: 'the core does not know its faces',
    from: ['src/'],
    to: ['http/', 'api/', 'dashboard/', 'workers/'],
  },
  {
    name: 'the domain is pure: it imports only itself',
    from: ['src/domain/'],
    to: ['src/'],
    allow: ['src/domain/'],
  },
  { name: 'storage does not reach up into services', from: ['src/storage/'], to: ['src/services/'] },
  {
    name: 'the callback, observability and security modules use only the domain',
    from: ['src/callback/', 'src/observability/', 'src/security/'],
    to: ['src/services/', 'src/storage/'],
  },
  {
    name: 'the shared HTTP edge sits below both faces',
    from: ['http/'],
    to: ['api/', 'dashboard/', 'workers/'],
  },
  {
    name: 'the API does not know the dashboard or the workers',
    from: ['api/'],
    to: ['dashboard/', 'workers/'],
  },
  {
    name: 'the dashboard does not know the API or the workers',
    from: ['dashboard/'],
    to: ['api/', 'workers/'],
  },
  {
    name: 'roles do not reach into the HTTP faces (only the composition root mounts them)',
    from: ['workers/'],
    to: ['http/', 'api/', 'dashboard/'],
    except: ['workers/main.ts'],
  },
  {
    name: 'the server does not know its client or the CLI',
    from: ['src/', 'http/', 'api/', 'dashboard/', 'workers/'],
    to: ['client/', 'cli/'],
  },
  {
    name: 'the client is self-contained (published as xtimer/client): it imports only itself',
    from: ['client/'],
    to: [''],
    allow: ['client/'],
  },
  {
    name: 'the CLI reaches the server only through the client, over HTTP',
    from: ['cli/'],
    to: [''],
    allow: ['cli/', 'client/'],
  },
  {
    name: 'production code does not import tests or benches',
    from: [''],
    to: ['test/', 'bench/'],
    except: ['test/', 'bench/'],
  },
];

const SPECIFIER =
  /(?:^|[\s;}])(?:import|export)\s+(?:type\s+)?(?:[\w*{}\s,$]+?\s+from\s+)?['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

/** The relative specifiers a source text imports (comments are not stripped: none of ours quotes an import). */
export function specifiersOf(source: string): string[] {
  const found: string[] = [];
  for (const m of source.matchAll(SPECIFIER)) {
    const spec = m[1] ?? m[2];
    if (spec?.startsWith('.')) found.push(spec);
  }
  return found;
}

/** The repo-relative file a relative specifier names (`./x.js` is the source `./x.ts`). */
export function resolveSpecifier(
  fromFile: string,
  spec: string,
  exists: (path: string) => boolean,
): string | null {
  const base = join(dirname(fromFile), spec).split(sep).join('/');
  const candidates = [
    base.replace(/\.js$/, '.ts'),
    base.replace(/\.mjs$/, '.mts'),
    base,
    `${base}.ts`,
    `${base}/index.ts`,
  ];
  return candidates.find(exists) ?? null;
}

/** Every .ts/.mts/.mjs file below `roots` of `repo`, repo-relative. */
export function sourceFiles(repo: string, roots: readonly string[] = ROOTS): string[] {
  const files: string[] = [];
  const walk = (dir: string): void => {
    let entries: string[];
    try {
      entries = readdirSync(join(repo, dir));
    } catch {
      return;
    }
    for (const name of entries) {
      if (name === 'node_modules' || name.startsWith('.')) continue;
      const path = `${dir}/${name}`;
      if (statSync(join(repo, path)).isDirectory()) walk(path);
      else if (/\.(ts|mts|mjs)$/.test(name) && !name.endsWith('.d.ts')) files.push(path);
    }
  };
  for (const root of roots) walk(root);
  return files.sort();
}

export type ImportGraph = Map<string, string[]>;

/** The import graph: each file and the files of ours it imports. */
export function importGraph(repo: string, files: readonly string[]): ImportGraph {
  const known = new Set(files);
  const graph: ImportGraph = new Map();
  for (const file of files) {
    const text = readFileSync(join(repo, file), 'utf8');
    const targets = new Set<string>();
    for (const spec of specifiersOf(text)) {
      const target = resolveSpecifier(file, spec, (p) => known.has(p));
      if (target) targets.add(target);
    }
    graph.set(file, [...targets].sort());
  }
  return graph;
}

/** The cycles of `graph`: its strongly connected components of more than one file (or a file importing itself). */
export function findCycles(graph: ImportGraph): string[][] {
  let index = 0;
  const indexOf = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const lowOf = (v: string): number => low.get(v) ?? Number.POSITIVE_INFINITY;
  const connect = (v: string): void => {
    indexOf.set(v, index);
    low.set(v, index);
    index++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!indexOf.has(w)) {
        connect(w);
        low.set(v, Math.min(lowOf(v), lowOf(w)));
      } else if (onStack.has(w)) low.set(v, Math.min(lowOf(v), indexOf.get(w) ?? Number.POSITIVE_INFINITY));
    }
    if (low.get(v) === indexOf.get(v)) {
      const component: string[] = [];
      for (let w = stack.pop(); w !== undefined; w = w === v ? undefined : stack.pop()) {
        onStack.delete(w);
        component.push(w);
      }
      if (component.length > 1 || (graph.get(v) ?? []).includes(v)) cycles.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!indexOf.has(v)) connect(v);
  return cycles;
}

export interface ForbiddenArrow {
  rule: string;
  from: string;
  to: string;
}

/** The imports that break a rule. */
export function forbiddenArrows(graph: ImportGraph, rules: readonly ImportRule[] = RULES): ForbiddenArrow[] {
  const broken: ForbiddenArrow[] = [];
  for (const [from, targets] of graph) {
    for (const rule of rules) {
      if (!rule.from.some((f) => from.startsWith(f))) continue;
      if ((rule.except ?? []).some((e) => from.startsWith(e))) continue;
      for (const to of targets) {
        if (!rule.to.some((t) => to.startsWith(t))) continue;
        if ((rule.allow ?? []).some((a) => to.startsWith(a))) continue;
        broken.push({ rule: rule.name, from, to });
      }
    }
  }
  return broken;
}

/** Checks the repository at `repo`; returns the problems found, as lines to print. */
export function checkImports(repo: string): string[] {
  const graph = importGraph(repo, sourceFiles(repo));
  const problems: string[] = [];
  for (const cycle of findCycles(graph)) problems.push(`import cycle: ${cycle.join(' <-> ')}`);
  for (const b of forbiddenArrows(graph)) problems.push(`forbidden import (${b.rule}): ${b.from} -> ${b.to}`);
  return problems;
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const repo = process.argv[2] ?? fileURLToPath(new URL('..', import.meta.url));
  const problems = checkImports(repo);
  for (const p of problems) console.error(p);
  if (problems.length > 0) process.exit(1);
  console.log(`imports: no cycle, no forbidden arrow (${relative(process.cwd(), repo) || '.'})`);
}
