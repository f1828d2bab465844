import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';

/**
 * The npm start scripts: every one runs the same compiled entrypoint (dist/workers/main.js),
 * built first when the sources changed, and the start:* ones pick their roles with
 * --roles, which the config reads like XTIMER_ROLES.
 */

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  scripts: Record<string, string>;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

const ENTRY = 'dist/workers/main.js';
const START_SCRIPTS = ['start', 'start:api', 'start:scheduler', 'start:worker'];

/** The arguments a script passes to dist/workers/main.js. */
function argsOf(script: string): string[] {
  const words = pkg.scripts[script]!.split(/\s+/);
  const at = words.indexOf(ENTRY);
  expect(at, `${script} runs ${ENTRY}`).toBeGreaterThanOrEqual(0);
  return words.slice(at + 1);
}

describe('npm start scripts', () => {
  it('all run the one compiled entrypoint the same way, with node and no TypeScript loader', () => {
    const runners = START_SCRIPTS.map((s) => pkg.scripts[s]!.slice(0, pkg.scripts[s]!.indexOf(ENTRY)));
    expect(new Set(runners).size).toBe(1);
    expect(runners[0]).toMatch(/^node /);
    expect(runners[0]).not.toContain('tsx');
  });

  it.each(START_SCRIPTS)('%s builds dist first when it is older than the sources', (script) => {
    expect(pkg.scripts[`pre${script}`]).toBe('node scripts/build.mjs --if-stale');
  });

  it('needs neither tsx nor TypeScript in production', () => {
    expect(Object.keys(pkg.dependencies)).not.toContain('tsx');
    expect(Object.keys(pkg.dependencies)).not.toContain('typescript');
    expect(Object.keys(pkg.devDependencies)).toEqual(expect.arrayContaining(['tsx', 'typescript']));
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
