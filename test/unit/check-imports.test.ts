import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import {
  checkImports,
  findCycles,
  forbiddenArrows,
  type ImportGraph,
  specifiersOf,
} from '../../scripts/check-imports.js';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const script = join(repoRoot, 'scripts/check-imports.ts');
const tsx = join(repoRoot, 'node_modules/.bin/tsx');

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A throwaway repository holding `files` (repo-relative path → source). */
function repoWith(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'xtimer-imports-'));
  made.push(dir);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

const graph = (edges: Record<string, string[]>): ImportGraph => new Map(Object.entries(edges));

describe('reading imports from source', () => {
  it('finds static, type-only, re-exported, bare and dynamic imports of our own files, not packages', () => {
    const source = [
      "import { a } from './a.js';",
      "import type { B } from '../b.js';",
      'import {\n  c,\n  type D,\n} from "./c.js";',
      "export { e } from './e.js';",
      "export * from './f.js';",
      "import './g.js';",
      "const h = await import('./h.js');",
      "import { Hono } from 'hono';",
    ].join('\n');
    expect(specifiersOf(source)).toEqual([
      './a.js',
      '../b.js',
      './c.js',
      './e.js',
      './f.js',
      './g.js',
      './h.js',
    ]);
  });
});

describe('cycles', () => {
  it('reports two files importing each other as one cycle', () => {
    expect(findCycles(graph({ 'src/a.ts': ['src/b.ts'], 'src/b.ts': ['src/a.ts'] }))).toEqual([
      ['src/a.ts', 'src/b.ts'],
    ]);
  });

  it('reports a longer loop once, with every file on it', () => {
    const cycles = findCycles(
      graph({ 'a.ts': ['b.ts'], 'b.ts': ['c.ts'], 'c.ts': ['a.ts', 'd.ts'], 'd.ts': [] }),
    );
    expect(cycles).toEqual([['a.ts', 'b.ts', 'c.ts']]);
  });

  it('reports no cycle in a graph whose arrows all point one way', () => {
    expect(findCycles(graph({ 'a.ts': ['b.ts', 'c.ts'], 'b.ts': ['c.ts'], 'c.ts': [] }))).toEqual([]);
  });
});

describe('forbidden arrows', () => {
  it('refuses src importing a face above it', () => {
    const broken = forbiddenArrows(graph({ 'src/services/x.ts': ['api/errors.ts'] }));
    expect(broken.map((b) => `${b.from} -> ${b.to}`)).toEqual(['src/services/x.ts -> api/errors.ts']);
  });

  it('refuses the dashboard importing the API, and the API importing the dashboard', () => {
    const broken = forbiddenArrows(
      graph({ 'dashboard/page.ts': ['api/errors.ts'], 'api/app.ts': ['dashboard/dashboard.ts'] }),
    );
    expect(broken).toHaveLength(2);
  });

  it('lets both faces import the shared HTTP edge, and the domain import only itself', () => {
    expect(
      forbiddenArrows(
        graph({
          'api/app.ts': ['http/errors.ts', 'src/services/timer-service.ts'],
          'dashboard/page.ts': ['http/errors.ts'],
          'src/domain/slice.ts': ['src/domain/task-key.ts'],
        }),
      ),
    ).toEqual([]);
    expect(forbiddenArrows(graph({ 'src/domain/slice.ts': ['src/storage/redis/keys.ts'] }))).toHaveLength(1);
  });

  it('lets only the composition root (workers/main.ts) mount the API', () => {
    expect(forbiddenArrows(graph({ 'workers/main.ts': ['api/app.ts'] }))).toEqual([]);
    expect(forbiddenArrows(graph({ 'workers/trigger.ts': ['api/app.ts'] }))).toHaveLength(1);
  });

  it('keeps the client alone, the CLI on the client, and the server off both', () => {
    expect(
      forbiddenArrows(
        graph({
          'cli/program.ts': ['client/index.ts', 'cli/errors.ts'],
          'client/index.ts': ['client/openapi-types.ts'],
        }),
      ),
    ).toEqual([]);
    const broken = forbiddenArrows(
      graph({
        'client/index.ts': ['http/schemas/timer-schemas.ts'],
        'cli/program.ts': ['src/domain/apply-plan.ts', 'api/etag.ts'],
        'api/app.ts': ['client/index.ts'],
        'src/services/x.ts': ['cli/errors.ts'],
      }),
    );
    expect(broken.map((b) => `${b.from} -> ${b.to}`).sort()).toEqual([
      'api/app.ts -> client/index.ts',
      'cli/program.ts -> api/etag.ts',
      'cli/program.ts -> src/domain/apply-plan.ts',
      'client/index.ts -> http/schemas/timer-schemas.ts',
      'src/services/x.ts -> cli/errors.ts',
    ]);
  });
});

describe('the repository', () => {
  it('has no import cycle and no forbidden arrow', () => {
    expect(checkImports(repoRoot)).toEqual([]);
  });

  it('fails the lint step on a deliberately added cycle, naming its files', () => {
    const repo = repoWith({
      'src/services/a.ts': "import { b } from './b.js';\nexport const a = () => b;\n",
      'src/services/b.ts': "import { a } from './a.js';\nexport const b = () => a;\n",
      'api/app.ts': "import { a } from '../src/services/a.js';\n",
    });
    const run = spawnSync(tsx, [script, repo], { encoding: 'utf8' });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('import cycle: src/services/a.ts <-> src/services/b.ts');
  });

  it('finds nothing wrong in a tree whose arrows all point down', () => {
    const repo = repoWith({
      'src/services/a.ts': 'export const a = 1;\n',
      'api/app.ts': "import { a } from '../src/services/a.js';\n",
    });
    expect(checkImports(repo)).toEqual([]);
  });
});
