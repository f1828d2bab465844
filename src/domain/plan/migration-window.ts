import { MINUTE, minuteStart } from './slice.js';

/**
 * Migration windows: clock-aligned, half-open [start, start + step).
 * While window k runs, window k+1 is materialised. A created, enabled or changed timer
 * gets only its near-term runs at once; the migrator's top-up, every minute, plans the
 * rest up to the end of the next window (so creating many or dense timers stays fast).
 */
export interface MigrationWindow {
  start: number;
  end: number;
}

export function stepMs(stepMinutes: number): number {
  return stepMinutes * 60_000;
}

export function windowAt(ms: number, stepMinutes: number): MigrationWindow {
  const step = stepMs(stepMinutes);
  const start = Math.floor(ms / step) * step;
  return { start, end: start + step };
}

/** The end of the window after the current one: how far ahead runs are materialised. */
export function planHorizon(nowMs: number, stepMinutes: number): number {
  return windowAt(nowMs, stepMinutes).end + stepMs(stepMinutes);
}

/** The window's lock name: the UTC hour (`YYYY-MM-DDTHH`), or the minute for sub-hour steps. */
export function windowKey(startMs: number, stepMinutes: number): string {
  const iso = new Date(startMs).toISOString();
  return stepMinutes % 60 === 0 ? iso.slice(0, 13) : iso.slice(0, 16);
}

/**
 * How far a create, enable or schedule change plans a dense schedule: the rest of this
 * minute and the next two, never past the full horizon. An every-second timer then
 * writes ~150 runs instead of up to 7,200, an every-minute one 2–3 instead of up to 120.
 */
export const NEAR_TERM_MINUTES = 3;

export function nearTermHorizon(nowMs: number, stepMinutes: number): number {
  return Math.min(planHorizon(nowMs, stepMinutes), minuteStart(nowMs) + NEAR_TERM_MINUTES * MINUTE);
}

/**
 * The top-up, just after each minute starts, plans every active timer whose runs stop
 * within this lead. A near-term plan made in minute M reaches M+3; the top-ups at M+1
 * and M+2 both see it (two chances, the later still a minute before the runs run out,
 * well ahead of the scheduler claiming minute M+3's slices PREFETCH_MS before it starts).
 */
export const TOP_UP_LEAD_MS = NEAR_TERM_MINUTES * MINUTE;

/**
 * Where the top-up's passes end, each planning every timer it selects that far before the
 * next begins: the end of this minute and the next four, spans three times as long from
 * there, then the horizon. Planned timer by timer to the horizon, an hour of a thousand
 * every-second timers (millions of runs) took minutes, and the last timers' near-term runs
 * ran out before their turn; pass by pass, each has until the previous one's end to write
 * twice as many minutes of runs.
 */
export function topUpHorizons(nowMs: number, stepMinutes: number): number[] {
  const horizon = planHorizon(nowMs, stepMinutes);
  const start = minuteStart(nowMs);
  const ends: number[] = [];
  for (let end = start + 5 * MINUTE; end < horizon; end = start + 3 * (end - start)) ends.push(end);
  return [...ends, horizon];
}

/**
 * How long a timer's copy in Redis lives once written: past every run planned from it
 * (at most two windows ahead) and an hour of retries after the last.
 */
export function copyTtlMs(stepMinutes: number): number {
  return 2 * stepMs(stepMinutes) + 60 * MINUTE;
}
