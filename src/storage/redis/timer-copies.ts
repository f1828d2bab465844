import type { Timer } from '../../domain/timer.js';
import type { Keys } from './keys.js';
import type { ScriptedRedis } from './scripts.js';
import { SlotBatch } from './slot-batch.js';

/** A deleted timer's copy says so, for executors to skip its runs without asking MySQL. */
const DELETED = 'deleted';

/** What a copy leaves out: nothing an executor reads when it fires a run. */
type Omitted =
  | 'labels'
  | 'description'
  | 'compatCron'
  | 'pausedNote'
  | 'pausedAt'
  | 'pausedUntil'
  | 'failureStreak'
  | 'runsPlanned'
  | 'skipCalendars'
  | 'createdAt'
  | 'updatedAt';

const LEFT_OUT: Pick<Timer, Omitted> = {
  labels: {},
  description: null,
  compatCron: null,
  pausedNote: null,
  pausedAt: null,
  pausedUntil: null,
  failureStreak: 0,
  runsPlanned: 0,
  skipCalendars: [],
  createdAt: new Date(0),
  updatedAt: new Date(0),
};

/** Fields a copy omits while they hold their usual value, to keep a copy small (most are null). */
const USUAL: Partial<Record<keyof Timer, unknown>> = {
  status: 'active',
  misfirePolicy: 'fire_once',
  misfireThresholdMs: 60_000,
  overlapPolicy: 'allow',
  at: null,
  everyMs: null,
  offsetMs: 0,
  jitterMs: 0,
  startAt: null,
  endAt: null,
  maxRuns: null,
  notify: null,
  autoPause: null,
  plannedFrom: null,
  finalRunAt: null,
};

export function encodeTimerCopy(t: Timer): string {
  const copy: Partial<Record<keyof Timer, unknown>> = {};
  for (const [k, v] of Object.entries(t) as Array<[keyof Timer, unknown]>) {
    if (k in LEFT_OUT || (Object.hasOwn(USUAL, k) && USUAL[k] === v)) continue;
    if (k === 'skipDates' && Object.keys(v as object).length === 0) continue;
    copy[k] = v;
  }
  return JSON.stringify(copy);
}

export function decodeTimerCopy(raw: string): Timer {
  return { ...USUAL, skipDates: {}, ...LEFT_OUT, ...JSON.parse(raw) } as Timer;
}

/**
 * Copies of timers in Redis, written by whoever plans their runs (the migrator, a
 * change once committed): what an executor needs to call a run planned in Redis, so
 * that firing goes on while MySQL is away. A copy lives as long as the runs planned
 * from it may wait (copyTtlMs); a deleted timer leaves a tombstone as long.
 */
export class TimerCopies {
  constructor(
    private readonly redis: ScriptedRedis,
    private readonly keys: Keys,
  ) {}

  async put(timers: readonly Timer[], ttlMs: number): Promise<void> {
    const batch = new SlotBatch(this.redis);
    for (const t of timers) {
      const key = this.keys.timerCopy(t.id);
      batch.on(key).set(key, encodeTimerCopy(t), 'PX', ttlMs);
    }
    if (batch.size > 0) await batch.execOrThrow();
  }

  async forget(ids: readonly number[], ttlMs: number): Promise<void> {
    const batch = new SlotBatch(this.redis);
    for (const id of ids) {
      const key = this.keys.timerCopy(id);
      batch.on(key).set(key, DELETED, 'PX', ttlMs);
    }
    if (batch.size > 0) await batch.execOrThrow();
  }

  /** Each timer's copy: the timer, null if it was deleted, undefined if there is no copy. */
  async get(ids: readonly number[]): Promise<Array<Timer | null | undefined>> {
    const batch = new SlotBatch(this.redis);
    for (const id of ids) {
      const key = this.keys.timerCopy(id);
      batch.on(key).get(key);
    }
    const raw = (await batch.execOrThrow()) as Array<string | null>;
    return raw.map((r) => (r === null ? undefined : r === DELETED ? null : decodeTimerCopy(r)));
  }
}
