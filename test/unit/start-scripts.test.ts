import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';

/**
 * The npm start scripts (issue 6): every one runs the same entrypoint, and the start:*
 * ones pick their roles with --roles, which the config reads like XTIMER_ROLES.
 */

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  scripts: Record<string, string>;
};

/** The arguments a script passes to workers/main.ts. */
function argsOf(script: string): string[] {
  const words = pkg.scripts[script]!.split(/\s+/);
  const at = words.indexOf('workers/main.ts');
  expect(at, `${script} runs workers/main.ts`).toBeGreaterThanOrEqual(0);
  return words.slice(at + 1);
}

describe('npm start scripts', () => {
  it('all run the one entrypoint the same way', () => {
    const runners = ['start', 'start:api', 'start:scheduler', 'start:worker'].map((s) =>
      pkg.scripts[s]!.slice(0, pkg.scripts[s]!.indexOf('workers/main.ts')),
    );
    expect(new Set(runners).size).toBe(1);
  });

  it.each([
    ['start', ['api', 'scheduler', 'migrator', 'trigger', 'executor']],
    ['start:api', ['api']],
    ['start:scheduler', ['scheduler', 'migrator']],
    ['start:worker', ['trigger', 'executor']],
  ])('%s runs the roles %j', (script, roles) => {
    expect(loadConfig({}, argsOf(script)).roles).toEqual(roles);
  });
});
