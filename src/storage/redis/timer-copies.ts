import type { Callback, RetryPolicy, Timer } from '../../domain/timer.js';
import type { Keys } from './keys.js';
import type { ScriptedPipeline, ScriptedRedis } from './scripts.js';
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

/**
 * A field as a copy holds it: its short name, and the value it is left out at. A field
 * with none is always kept, but an object field (headers, skip dates) while empty.
 */
interface Field<T> {
  short: string;
  usual?: T;
}

/**
 * Every field a copy keeps, by the short name it is stored under. A copy is one per
 * active timer, so its bytes count a million times: short names, and no field at its
 * usual value (most are), take a typical copy from ~250 bytes of JSON to ~100. The
 * timer's id is the key's. The types make a new Timer field fail to compile until it
 * is listed here or in LEFT_OUT, so a copy never silently loses what an executor reads.
 */
const TIMER_FIELDS: {
  [K in Exclude<keyof Timer, Omitted | 'id' | 'callback' | 'retry'>]-?: Field<Timer[K]>;
} = {
  app: { short: 'a' },
  name: { short: 'n' },
  cron: { short: 'c', usual: null },
  at: { short: 'at', usual: null },
  everyMs: { short: 'ev', usual: null },
  offsetMs: { short: 'of', usual: 0 },
  jitterMs: { short: 'j', usual: 0 },
  timezone: { short: 'z', usual: 'UTC' },
  misfirePolicy: { short: 'mp', usual: 'fire_once' },
  misfireThresholdMs: { short: 'mt', usual: 60_000 },
  startAt: { short: 'sa', usual: null },
  endAt: { short: 'ea', usual: null },
  maxRuns: { short: 'mr', usual: null },
  overlapPolicy: { short: 'op', usual: 'allow' },
  notify: { short: 'no', usual: null },
  status: { short: 's', usual: 'active' },
  autoPause: { short: 'ap', usual: null },
  skipDates: { short: 'sd' },
  version: { short: 'v' },
  plannedFrom: { short: 'pf', usual: null },
  finalRunAt: { short: 'fr', usual: null },
};

const CALLBACK_FIELDS: { [K in keyof Callback]-?: Field<Callback[K]> } = {
  url: { short: 'u' },
  method: { short: 'm', usual: 'POST' },
  headers: { short: 'h' },
  body: { short: 'b', usual: null },
  timeoutMs: { short: 'to', usual: 5000 },
};

const RETRY_FIELDS: { [K in keyof RetryPolicy]-?: Field<RetryPolicy[K]> } = {
  maxAttempts: { short: 'ra', usual: 1 },
  backoffMs: { short: 'rb', usual: 0 },
};

/** An object field (headers, skip dates) is left out while empty. */
const isEmptyObject = (v: unknown) =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && Object.keys(v).length === 0;

function pack(into: Record<string, unknown>, fields: Record<string, Field<unknown>>, from: object): void {
  const values = from as Record<string, unknown>;
  for (const [name, f] of Object.entries(fields)) {
    const v = values[name];
    if (v === undefined || ('usual' in f && f.usual === v) || isEmptyObject(v)) continue;
    into[f.short] = v;
  }
}

function unpack(
  from: Record<string, unknown>,
  fields: Record<string, Field<unknown>>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, f] of Object.entries(fields)) {
    // Absent: its usual value, or an empty object field.
    out[name] = Object.hasOwn(from, f.short) ? from[f.short] : 'usual' in f ? f.usual : {};
  }
  return out;
}

/** The compact copy (written under `keys.timerCopy`): short names, usual values left out, no id. */
export function encodeTimerCopy(t: Timer): string {
  const copy: Record<string, unknown> = {};
  pack(copy, TIMER_FIELDS, t);
  pack(copy, CALLBACK_FIELDS, t.callback);
  pack(copy, RETRY_FIELDS, t.retry);
  return JSON.stringify(copy);
}

export function decodeTimerCopy(id: number, raw: string): Timer {
  const copy = JSON.parse(raw) as Record<string, unknown>;
  return {
    id,
    ...unpack(copy, TIMER_FIELDS),
    callback: unpack(copy, CALLBACK_FIELDS),
    retry: unpack(copy, RETRY_FIELDS),
    ...LEFT_OUT,
  } as unknown as Timer;
}

/**
 * What earlier releases wrote under `keys.legacyTimerCopy`: the timer's JSON, its usual
 * top-level values left out. Still read while such copies live (copyTtlMs), so that a
 * rolling deploy keeps firing without MySQL.
 */
const LEGACY_USUAL: Partial<Record<keyof Timer, unknown>> = {
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

export function decodeLegacyTimerCopy(raw: string): Timer {
  return { ...LEGACY_USUAL, skipDates: {}, ...LEFT_OUT, ...JSON.parse(raw) } as Timer;
}

/**
 * Copies of timers in Redis, written by whoever plans their runs (the migrator, a
 * change once committed): what an executor needs to call a run planned in Redis, so
 * that firing goes on while MySQL is away. A copy lives as long as the runs planned
 * from it may wait (copyTtlMs); a deleted timer leaves a tombstone as long.
 *
 * Rolling deploys: copies are written compact under `keys.timerCopy`; processes of the
 * previous release read only `keys.legacyTimerCopy`, find no copy there and read MySQL,
 * as for any timer without one. A delete leaves its tombstone under both keys, so that
 * those processes skip a deleted timer's runs too. Reads take both keys: a tombstone in
 * either wins, else the newer version.
 */
export class TimerCopies {
  constructor(
    private readonly redis: ScriptedRedis,
    private readonly keys: Keys,
  ) {}

  /** Writes each timer's copy, but not over a newer version of it or its tombstone. */
  async put(timers: readonly Timer[], ttlMs: number): Promise<void> {
    const batch = new SlotBatch(this.redis);
    for (const t of timers) {
      const key = this.keys.timerCopy(t.id);
      (batch.on(key) as ScriptedPipeline).putTimerCopy(key, encodeTimerCopy(t), t.version, ttlMs);
    }
    if (batch.size > 0) await batch.execOrThrow();
  }

  async forget(ids: readonly number[], ttlMs: number): Promise<void> {
    const batch = new SlotBatch(this.redis);
    for (const id of ids) {
      for (const key of [this.keys.timerCopy(id), this.keys.legacyTimerCopy(id)])
        batch.on(key).set(key, DELETED, 'PX', ttlMs);
    }
    if (batch.size > 0) await batch.execOrThrow();
  }

  /** Each timer's copy: the timer, null if it was deleted, undefined if there is no copy. */
  async get(ids: readonly number[]): Promise<Array<Timer | null | undefined>> {
    const batch = new SlotBatch(this.redis);
    for (const id of ids) {
      for (const key of [this.keys.timerCopy(id), this.keys.legacyTimerCopy(id)]) batch.on(key).get(key);
    }
    const raw = (await batch.execOrThrow()) as Array<string | null>;
    return ids.map((id, i) => {
      const compact = raw[2 * i] ?? null;
      const legacy = raw[2 * i + 1] ?? null;
      if (compact === DELETED || legacy === DELETED) return null;
      const a = compact === null ? undefined : decodeTimerCopy(id, compact);
      const b = legacy === null ? undefined : decodeLegacyTimerCopy(legacy);
      return a && b ? (b.version > a.version ? b : a) : (a ?? b);
    });
  }
}
