import { describe, expect, it } from 'vitest';
import { renderPlan } from '../../cli/plan-view.js';
import { colorsFor, table } from '../../cli/terminal.js';

/** The CLI's output rules: colour only on a terminal without NO_COLOR, aligned tables, the plan as a diff. */

describe('colour', () => {
  it('paints on a terminal, never with NO_COLOR, on a pipe only with FORCE_COLOR', () => {
    expect(colorsFor({ isTTY: true }, {}).green('x')).toBe('\u001b[32mx\u001b[39m');
    expect(colorsFor({ isTTY: true }, { NO_COLOR: '1' }).green('x')).toBe('x');
    expect(colorsFor({ isTTY: false }, {}).green('x')).toBe('x');
    expect(colorsFor({}, { FORCE_COLOR: '1' }).green('x')).toBe('\u001b[32mx\u001b[39m');
    expect(colorsFor({}, { FORCE_COLOR: '1', NO_COLOR: '1' }).green('x')).toBe('x');
  });
});

describe('table', () => {
  it('aligns columns whatever colour codes the cells hold', () => {
    const green = colorsFor({ isTTY: true }, {}).green;
    expect(
      table(
        ['ID', 'NAME'],
        [
          ['1', green('a')],
          ['22', 'bb'],
        ],
      ),
    ).toBe(`ID  NAME\n1   ${green('a')}\n22  bb\n`);
  });
});

describe('renderPlan', () => {
  const plain = colorsFor({}, {});
  it('shows creates, updates field by field and deletes, and sums them up', () => {
    const text = renderPlan(
      'billing',
      [
        { name: 'new', action: 'create' },
        { name: 'old', action: 'delete' },
        { name: 'same', action: 'unchanged' },
        { name: 'sync', action: 'update', changes: { cron: { before: '0 * * * *', after: '*/5 * * * *' } } },
      ],
      plain,
    );
    expect(text).toBe(
      'app billing:\n+ new\n- old\n~ sync\n    cron: "0 * * * *" → "*/5 * * * *"\nPlan: 1 to create, 1 to update, 1 to delete, 1 unchanged.\n',
    );
  });

  it('says so when nothing changes', () => {
    expect(renderPlan('billing', [{ name: 'same', action: 'unchanged' }], plain)).toBe(
      'app billing: no changes (1 unchanged).\n',
    );
  });
});
