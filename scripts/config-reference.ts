// `npm run docs:config`: writes docs/configuration.md from the settings in src/setting-specs.ts, so
// the reference cannot drift from what the code reads (test/hygiene/configuration-doc.test.ts).
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { SETTING_SPECS, type SettingGroup } from '../src/setting-specs.js';

const GROUPS: Array<{ group: SettingGroup; title: string; intro: string }> = [
  {
    group: 'essential',
    title: 'Essential',
    intro: 'What every deployment looks at: where it listens, its stores, its roles, its keys.',
  },
  {
    group: 'policy',
    title: 'Policy',
    intro: 'What a team decides: limits on apps and timers, security, retention, defaults of a timer.',
  },
  {
    group: 'tuning',
    title: 'Tuning',
    intro: 'What a load may ask for: slices, concurrency, how far ahead runs are planned.',
  },
];

export function configurationReference(): string {
  const lines = [
    '# Configuration',
    '',
    '<!-- Generated from src/setting-specs.ts by `npm run docs:config`; edit the settings there. -->',
    '',
    'Environment variables, validated at start: a bad value stops the process with a message',
    'naming the setting. An empty value counts as unset. `--roles=` on the command line stands',
    'in for `XTIMER_ROLES`.',
  ];
  for (const { group, title, intro } of GROUPS) {
    const rows = Object.entries(SETTING_SPECS)
      .filter(([, spec]) => spec.group === group)
      .map(([name, spec]) => [`\`${name}\``, spec.default, spec.about]);
    lines.push('', `## ${title}`, '', intro, '', ...table(['name', 'default', 'meaning'], rows));
  }
  return `${lines.join('\n')}\n`;
}

/** A Markdown table with its columns padded, as the formatter writes them. */
function table(header: string[], rows: string[][]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)];
}

export const REFERENCE_FILE = fileURLToPath(new URL('../docs/configuration.md', import.meta.url));

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(REFERENCE_FILE, configurationReference());
  process.stdout.write(`wrote ${REFERENCE_FILE}\n`);
}
