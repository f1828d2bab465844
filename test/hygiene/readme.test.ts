import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { receiverSamples } from '../helpers/doc-samples.js';

/**
 * The README is the front page a newcomer reads first; the manual is in docs/, and each
 * chapter's own tests read it there.
 */

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
const readme = read('README.md');

describe('README', () => {
  it('starts with the command to run the service and the one to run the tests', () => {
    const block = /```sh\n([\s\S]*?)```/.exec(readme)![1]!;
    expect(block).toContain('npm install && npm start');
    expect(block).toContain('npm install && npm test');
  });

  it('stays a front page of at most 300 lines', () => {
    expect(readme.trimEnd().split('\n').length).toBeLessThanOrEqual(300);
  });

  it('says what xtimer is before what its tests need', () => {
    expect(readme.indexOf('xtimer is a distributed timer service')).toBeGreaterThan(0);
    expect(readme.indexOf('xtimer is a distributed timer service')).toBeLessThan(readme.indexOf('chromium'));
  });

  it('shows the same sample receiver as docs/receivers.md (test/e2e/sample-receiver.test.ts runs it)', () => {
    const samples = receiverSamples(readme);
    expect(samples).toHaveLength(1);
    expect(receiverSamples(read('docs/receivers.md'))).toEqual(samples);
  });
});
