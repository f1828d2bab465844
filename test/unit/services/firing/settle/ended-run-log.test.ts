import { expect, it } from 'vitest';
import type { Logger } from '../../../../../src/observability/logger.js';
import { EndedRunLog } from '../../../../../src/services/firing/settle/ended-run-log.js';

function recorder() {
  const lines: Array<{ fields: Record<string, unknown>; msg: string }> = [];
  const warn = (fields: Record<string, unknown>, msg: string) => void lines.push({ fields, msg });
  return { lines, warn: warn as Logger['warn'] };
}

const fields = (n: number) => ({
  app: 'billing',
  timer: 'nightly',
  timerId: 7,
  taskKey: `7_${n}`,
  host: 'hooks.example',
  reason: 'missed: picked up late',
});

it('logs each ended run while they are few, and counts the rest of a flood in one line at the window end', () => {
  let now = 1_000_000;
  const log = recorder();
  const ended = new EndedRunLog(log, () => now);
  for (let i = 0; i < 5; i++) ended.ended('failed', fields(i));
  expect(log.lines.map((l) => l.msg)).toEqual(Array(5).fill('run failed'));

  // An overload: thousands missed within the same 10 s.
  for (let i = 0; i < 5000; i++) ended.ended('missed', fields(i));
  expect(log.lines).toHaveLength(20);
  expect(log.lines.at(-1)).toMatchObject({ msg: 'run missed', fields: { taskKey: '7_14', app: 'billing' } });

  // The next window: the count of the last one first, then lines again.
  now += 10_000;
  ended.ended('failed', fields(1));
  expect(log.lines.slice(20).map((l) => [l.msg.slice(0, 9), l.fields.missed ?? null])).toEqual([
    ['more runs', 4985],
    ['run faile', null],
  ]);
  ended.summarise();
  expect(log.lines).toHaveLength(22);
});
