/**
 * Migration windows (SPEC §5.2): clock-aligned, half-open [start, start + step).
 * While window k runs, window k+1 is materialised; an enabled timer gets its runs up
 * to the end of the next window at once.
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
