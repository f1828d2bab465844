import { describe, expect, it } from 'vitest';
import { renderPauseState, renderResumed } from '../../../cli/pause-view.js';
import { renderPlan } from '../../../cli/plan-view.js';
import { colorsFor, table } from '../../../cli/terminal.js';

/** The CLI's output rules: colour only on a terminal without NO_COLOR, aligned tables, the plan as a diff, the pause of everything. */

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

describe('the pause of everything', () => {
  const plain = colorsFor({}, {});
  const pause = { note: 'INC-7: receivers down', pausedAt: '2030-01-01T10:00:00.000Z', pausedBy: 'admin' };

  it('says whether everything is paused, since when, by whom and why, and how to end it', () => {
    expect(renderPauseState({ paused: true, ...pause }, plain)).toBe(
      'PAUSED since 2030-01-01T10:00:00.000Z by admin: INC-7: receivers down\n' +
        'Scheduled runs and backfills are recorded skipped ("paused: <note>"); run now and retry still go.\n' +
        'End it with: xtimer resume-all\n',
    );
    expect(renderPauseState({ paused: false }, plain)).toBe('Not paused: runs are called as scheduled.\n');
    expect(
      renderPauseState({ paused: true, ...pause }, colorsFor({ isTTY: true }, {})).startsWith(
        '\u001b[31m\u001b[1mPAUSED',
      ),
    ).toBe(true);
  });

  it('says which pause a resume ended, or that there was none', () => {
    expect(renderResumed({ paused: false, ended: pause }, plain)).toBe(
      'Resumed: the pause since 2030-01-01T10:00:00.000Z by admin (INC-7: receivers down) has ended; runs due from now on are called.\n',
    );
    expect(renderResumed({ paused: false, ended: null }, plain)).toBe('Nothing was paused.\n');
  });
});
