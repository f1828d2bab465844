/**
 * Run-enumeration speed of the cron domain (`node --import tsx bench/cron-expansion.ts`):
 * frequent schedules over a whole day and over hour windows (the migrator's call), in
 * UTC, in a zone without transitions and in New York on an ordinary and a transition day.
 * Parsed crons are cached, as on the migrator's hot path.
 */
import { expandRuns, parseCron } from '../src/domain/schedule/cron-schedule.js';

const HOUR = 3600_000;
const DAY = 24 * HOUR;

interface Case {
  cron: string;
  zone: string;
  day: string;
}

const cases: Case[] = [];
for (const cron of ['* * * * * *', '*/15 * * * *']) {
  for (const [zone, day] of [
    ['UTC', '2027-06-15'],
    ['Asia/Shanghai', '2027-06-15'],
    ['America/New_York', '2027-06-15'],
    ['America/New_York', '2027-03-14'],
    ['America/New_York', '2027-11-07'],
  ] as const) {
    cases.push({ cron, zone, day });
  }
}

/** Repeats `fn` for about `budgetMs` and answers runs per second and calls per second. */
function measure(fn: () => number, budgetMs = 400): { runsPerSec: number; callsPerSec: number } {
  for (let i = 0; i < 3; i++) fn();
  let runs = 0;
  let calls = 0;
  const started = performance.now();
  while (performance.now() - started < budgetMs) {
    runs += fn();
    calls++;
  }
  const seconds = (performance.now() - started) / 1000;
  return { runsPerSec: runs / seconds, callsPerSec: calls / seconds };
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

for (const { cron, zone, day } of cases) {
  const schedule = parseCron(cron);
  const start = Date.parse(`${day}T00:00:00Z`);
  const wholeDay = measure(() => expandRuns(schedule, zone, start, start + DAY).length);
  let hour = 0;
  const hourWindows = measure(() => {
    const from = start + (hour++ % 24) * HOUR;
    return expandRuns(schedule, zone, from, from + HOUR).length;
  });
  process.stdout.write(
    `${cron.padEnd(14)} ${zone.padEnd(17)} ${day}  day: ${fmt(wholeDay.runsPerSec).padStart(12)} runs/s` +
      `   1h windows: ${fmt(hourWindows.runsPerSec).padStart(12)} runs/s ${fmt(hourWindows.callsPerSec).padStart(8)} calls/s\n`,
  );
}
