import { describe, expect, it } from 'vitest';
import {
  adjacency,
  check,
  findCycles,
  findUpwardArrows,
  type ImportEdge,
  parseImports,
  resolveSpecifier,
} from '../../scripts/check-imports.js';

/** Edges from `from → to` pairs, as the script builds them from files. */
const edges = (...pairs: Array<[string, string]>): ImportEdge[] =>
  pairs.map(([from, to]) => ({ from, to, typeOnly: false, line: 1 }));

describe('reading the imports of a file', () => {
  it('finds imports, re-exports, type-only imports and dynamic imports, with their lines', () => {
    const source = [
      "import { a } from './a.js';",
      "import type { B } from '../b.js';",
      'import {',
      '  c,',
      "} from './c.js';",
      "export { d } from './d.js';",
      "export type { E } from './e.js';",
      "import './side-effect.js';",
      "const f = await import('./f.js');",
      "type G = import('./g.js').G;",
    ].join('\n');
    expect(parseImports(source)).toEqual([
      { specifier: './a.js', typeOnly: false, line: 1 },
      { specifier: '../b.js', typeOnly: true, line: 2 },
      { specifier: './c.js', typeOnly: false, line: 5 },
      { specifier: './d.js', typeOnly: false, line: 6 },
      { specifier: './e.js', typeOnly: true, line: 7 },
      { specifier: './side-effect.js', typeOnly: false, line: 8 },
      { specifier: './f.js', typeOnly: false, line: 9 },
      { specifier: './g.js', typeOnly: true, line: 10 },
    ]);
  });

  it('leaves out packages, comments and strings that only look like imports', () => {
    const source = [
      "import { z } from 'zod';",
      "import { serve } from '@hono/node-server';",
      "// import { old } from './old.js';",
      'const html = "import { x } from \'./x.js\'";',
    ].join('\n');
    expect(parseImports(source)).toEqual([]);
  });
});

describe('resolving a specifier to a source file', () => {
  const files = new Set(['src/domain/plan/slice.ts', 'api/routes/timers.ts']);
  const exists = (path: string) => files.has(path);

  it('names the .ts file a NodeNext .js specifier compiles from', () => {
    expect(resolveSpecifier('api/routes/timers.ts', '../../src/domain/plan/slice.js', exists)).toBe(
      'src/domain/plan/slice.ts',
    );
  });

  it('skips what is not code, and flags code that names no file', () => {
    expect(resolveSpecifier('src/config.ts', '../package.json', exists)).toBeNull();
    expect(resolveSpecifier('src/config.ts', './missing.js', exists)).toBeUndefined();
    expect(resolveSpecifier('src/config.ts', './extensionless', exists)).toBeUndefined();
  });
});

describe('import cycles', () => {
  it('finds none in a graph whose arrows all point one way', () => {
    const graph = adjacency(edges(['a.ts', 'b.ts'], ['b.ts', 'c.ts'], ['a.ts', 'c.ts']));
    expect(findCycles(graph)).toEqual([]);
  });

  it('names a two-file cycle as a path back to its start', () => {
    const graph = adjacency(
      edges(['api/auth.ts', 'api/routes/compat.ts'], ['api/routes/compat.ts', 'api/auth.ts']),
    );
    expect(findCycles(graph)).toEqual([['api/auth.ts', 'api/routes/compat.ts', 'api/auth.ts']]);
  });

  it('names a file that imports itself', () => {
    expect(findCycles(adjacency(edges(['a.ts', 'a.ts'])))).toEqual([['a.ts', 'a.ts']]);
  });

  it('names every file on a cycle, through the shortest cycle it lies on', () => {
    // a → b → c → a, and b ↔ d: one tangle, two cycles.
    const graph = adjacency(
      edges(
        ['a.ts', 'b.ts'],
        ['b.ts', 'c.ts'],
        ['c.ts', 'a.ts'],
        ['b.ts', 'd.ts'],
        ['d.ts', 'b.ts'],
        ['c.ts', 'e.ts'],
      ),
    );
    expect(findCycles(graph)).toEqual([
      ['a.ts', 'b.ts', 'c.ts', 'a.ts'],
      ['b.ts', 'd.ts', 'b.ts'],
    ]);
  });

  it('counts a type-only import as an arrow of the cycle', () => {
    const lines = check([
      { from: 'src/services/a.ts', to: 'src/services/b.ts', typeOnly: false, line: 3 },
      { from: 'src/services/b.ts', to: 'src/services/a.ts', typeOnly: true, line: 9 },
    ]);
    expect(lines).toEqual(['import cycle: src/services/a.ts → src/services/b.ts → src/services/a.ts']);
  });
});

describe('upward arrows', () => {
  it('lets arrows point down the layers', () => {
    const down = edges(
      ['api/routes/timers.ts', 'src/services/timers/timer-service.ts'],
      ['dashboard/pages/timers-page.ts', 'http/errors.ts'],
      ['api/routes/timers.ts', 'http/presenters.ts'],
      ['http/presenters.ts', 'src/services/runs/backfill-service.ts'],
      ['src/services/runs/run-controls.ts', 'src/services/timers/timer-store.ts'],
      ['src/services/calendars/calendar-service.ts', 'src/services/timers/access.ts'],
      ['http/schemas/timer-schemas.ts', 'src/domain/timer.ts'],
      ['src/services/firing/run-executor.ts', 'src/storage/redis/runs/run-claims.ts'],
      ['src/storage/db/task-repository.ts', 'src/domain/timer.ts'],
      ['workers/main.ts', 'api/app.ts'],
    );
    expect(findUpwardArrows(down)).toEqual([]);
  });

  it.each([
    ['src/services/timers/timer-service.ts', 'api/errors.ts', 'src/', 'api/'],
    ['src/core.ts', 'workers/executor.ts', 'src/', 'workers/'],
    ['dashboard/pages/timers-page.ts', 'api/errors.ts', 'dashboard/', 'api/'],
    ['api/app.ts', 'dashboard/dashboard.ts', 'api/', 'dashboard/'],
    ['api/app.ts', 'workers/main.ts', 'api/', 'workers/'],
    ['src/domain/timer.ts', 'src/storage/db/schema.ts', 'src/domain/', 'src/storage/'],
    [
      'src/storage/redis/runs/slice-store.ts',
      'src/services/planning/migration.ts',
      'src/storage/',
      'src/services/',
    ],
    ['src/callback/http-caller.ts', 'src/services/firing/run-executor.ts', 'src/callback/', 'src/services/'],
    ['src/services/timers/timer-service.ts', 'http/presenters.ts', 'src/', 'http/'],
    ['src/domain/timer.ts', 'http/schemas/timer-schemas.ts', 'src/', 'http/'],
    ['http/errors.ts', 'api/router.ts', 'http/', 'api/'],
    ['http/presenters.ts', 'dashboard/views/timer-views.ts', 'http/', 'dashboard/'],
    ['http/timer-draft.ts', 'workers/main.ts', 'http/', 'workers/'],
    ['http/errors.ts', 'cli/program.ts', 'http/', 'cli/'],
  ])('refuses %s → %s (%s must not import %s)', (from, to, layer, target) => {
    const [arrow] = findUpwardArrows(edges([from, to]));
    expect(arrow?.rule.from).toBe(layer);
    expect(arrow?.target).toBe(target);
  });

  it('reports an arrow as file:line → file, saying which rule it breaks and that it is type-only', () => {
    const lines = check([{ from: 'dashboard/a.ts', to: 'api/errors.ts', typeOnly: true, line: 4 }]);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^upward arrow: dashboard\/a\.ts:4 → api\/errors\.ts \(type-only\): dashboard\/ must not import api\//,
    );
  });
});
