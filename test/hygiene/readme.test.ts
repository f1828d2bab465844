import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SETTINGS } from '../../src/config.js';

/** The README's configuration reference stays the list src/config.ts reads. */

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

function referenceTable(): string[] {
  const start = readme.indexOf('### Configuration reference');
  // Up to the next chapter: Security's defaults table names settings too.
  const section = readme.slice(start, readme.indexOf('\n## ', start));
  const rows = section.split('\n').filter((line) => /^\| `[A-Z_]+`\s*\|/.test(line));
  return rows.map((line) => /^\| `([A-Z_]+)`/.exec(line)![1]!);
}

describe('README', () => {
  it('starts with the command to run the service and the one to run the tests', () => {
    const block = /```sh\n([\s\S]*?)```/.exec(readme)![1]!;
    expect(block).toContain('npm install && npm start');
    expect(block).toContain('npm install && npm test');
  });

  it('documents every setting in its configuration reference, and no other', () => {
    expect([...referenceTable()].sort()).toEqual([...SETTINGS].sort());
  });
});
