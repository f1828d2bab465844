import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { configurationReference, REFERENCE_FILE } from '../../scripts/config-reference.js';
import { SETTINGS } from '../../src/config.js';
import { SETTING_SPECS } from '../../src/setting-specs.js';

describe('docs/configuration.md', () => {
  it('is what the settings in src/setting-specs.ts make (npm run docs:config writes it)', () => {
    expect(readFileSync(REFERENCE_FILE, 'utf8')).toBe(configurationReference());
  });

  it('names every setting the configuration reads, each with its group and a line on it', () => {
    expect(Object.keys(SETTING_SPECS).sort()).toEqual([...SETTINGS].sort());
    for (const spec of Object.values(SETTING_SPECS)) expect(spec.about.length).toBeGreaterThan(10);
  });
});
