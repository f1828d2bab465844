import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/**
 * The README is the front page a newcomer reads first; the manual is in docs/, and each
 * chapter's own tests read it there. The settings' reference is docs/configuration.md,
 * checked by configuration-doc.test.ts.
 */

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

describe('README', () => {
  it('starts with the command to run the service and the one to run the tests', () => {
    const block = /```sh\n([\s\S]*?)```/.exec(readme)![1]!;
    expect(block).toContain('npm install && npm start');
    expect(block).toContain('npm install && npm test');
  });
});
