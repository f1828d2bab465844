import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { codeBlocks, receiverSamples } from '../helpers/doc-samples.js';

/**
 * The sample receivers are files (samples/receivers/, run by test/e2e/sample-receiver.test.ts),
 * and docs/receivers.md shows each as it is, so what a reader copies is what the test ran.
 */

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
const doc = read('docs/receivers.md');

describe('docs/receivers.md', () => {
  it('shows samples/receivers/receiver.ts as it is', () => {
    expect(receiverSamples(doc)).toEqual([read('samples/receivers/receiver.ts')]);
  });

  it('shows samples/receivers/receiver.py as it is', () => {
    expect(codeBlocks(doc, 'python')).toEqual([read('samples/receivers/receiver.py')]);
  });

  it('shows samples/receivers/receiver.go as it is', () => {
    expect(codeBlocks(doc, 'go')).toEqual([read('samples/receivers/receiver.go')]);
  });
});
