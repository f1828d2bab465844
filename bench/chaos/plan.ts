/**
 * The chaos run's plan, from the seed alone: the timers to create, and the schedule of
 * actions (offsets from the start of the chaos window). Pure, so the same seed replays the
 * same run, and a test can hold the plan to its limits: at most two faults at once, one
 * process always up, every fault undone.
 */
import type { Signal, SinkMode } from './journal.js';
import { Prng } from './prng.js';

export type MisfirePolicy = 'fire_once' | 'fire_all' | 'skip';
export type OverlapPolicy = 'allow' | 'skip' | 'buffer_one';

/** A recurring schedule the checker can reckon with by itself (bench/chaos/timer-def.ts). */
export type RecurringSchedule = { cron: string } | { every: string; offset: string };
/** Or a one-shot, this long after its create is sent. */
export type ScheduleSpec = RecurringSchedule | { atInMs: number };

export interface TimerSpec {
  /** Names the timer in the plan (and in its callback path); its id comes when it is created. */
  key: string;
  app: string;
  schedule: ScheduleSpec;
  retry: { maxAttempts: number; backoffMs: number };
  misfirePolicy: MisfirePolicy;
  misfireThresholdMs: number;
  overlapPolicy: OverlapPolicy;
  timeoutMs: number;
}

export type ChaosAction = { atMs: number } & (
  | { kind: 'signal'; slot: number; signal: Signal }
  /** Starts the slot's process again, once the previous one has exited. */
  | { kind: 'restart'; slot: number }
  | { kind: 'mysql-cut'; slots: number[] }
  | { kind: 'mysql-restore'; slots: number[] }
  | { kind: 'redis-loss' }
  | { kind: 'sink'; mode: SinkMode; delayMs: number }
  | { kind: 'patch-schedule'; timer: string; schedule: RecurringSchedule }
  /** endAt this long after the PATCH is sent. */
  | { kind: 'patch-end'; timer: string; endInMs: number }
  | { kind: 'patch-callback'; timer: string; revision: number }
  | { kind: 'disable'; timer: string }
  | { kind: 'enable'; timer: string }
  | { kind: 'delete'; timer: string }
  | { kind: 'create'; timer: TimerSpec }
);

export interface PlanOptions {
  seed: number;
  minutes: number;
  /** xtimer processes (2 or 3). */
  procs: number;
  /** Timers created before the chaos starts. */
  timers: number;
}

export interface ChaosPlan extends PlanOptions {
  windowMs: number;
  timers: number;
  initial: TimerSpec[];
  actions: ChaosAction[];
}

/** At most this many faults at once (a process down or frozen, MySQL cut, Redis lost, a bad receiver). */
export const MAX_FAULTS = 2;
/** How long a restarted process is counted down after its restart (start-up, with tsx). */
const START_UP_MS = 10_000;
/** SIGTERM: the shutdown's steps may take a while before the restart can begin. */
const SIGTERM_DOWN_MS = 30_000;
/** Redis loss is a moment, but the rebuild after it is a fault for a while. */
const REDIS_LOSS_MS = 10_000;
/** No new action this close to the end of the window: the restore follows. */
const QUIET_END_MS = 8000;

const CRONS = ['* * * * * *', '*/2 * * * * *', '*/3 * * * * *'] as const;
const EVERIES = [
  { every: '1s', offset: '0s' },
  { every: '2s', offset: '0s' },
  { every: '2s', offset: '1s' },
  { every: '3s', offset: '2s' },
] as const;

interface Fault {
  kind: string;
  from: number;
  to: number;
  /** The process slots it takes away (down or frozen). */
  procs: number[];
}

interface TimerState {
  spec: TimerSpec;
  status: 'active' | 'inactive' | 'deleted';
  /** When its endAt passes (then it is completed, and left alone). */
  endsAt: number | null;
  revision: number;
}

export function planChaos(options: PlanOptions): ChaosPlan {
  return new Planner(options).plan();
}

class Planner {
  private readonly rng: Prng;
  private readonly windowMs: number;
  private readonly faults: Fault[] = [];
  private readonly actions: ChaosAction[] = [];
  private readonly timers = new Map<string, TimerState>();
  private created = 0;

  constructor(private readonly options: PlanOptions) {
    if (options.procs < 2 || options.procs > 3) throw new Error('procs must be 2 or 3');
    this.rng = new Prng(options.seed);
    this.windowMs = options.minutes * 60_000;
  }

  plan(): ChaosPlan {
    const initial = Array.from({ length: this.options.timers }, (_, i) => this.timerSpec(`t${i}`, i));
    for (const spec of initial)
      this.timers.set(spec.key, { spec, status: 'active', endsAt: null, revision: 0 });
    for (
      let t = this.rng.int(4000, 8000);
      t < this.windowMs - QUIET_END_MS;
      t += this.rng.int(3000, 10_000)
    ) {
      if (!(this.rng.chance(0.55) && this.fault(t))) this.edit(t);
    }
    return {
      ...this.options,
      windowMs: this.windowMs,
      initial,
      actions: this.actions.sort((a, b) => a.atMs - b.atMs),
    };
  }

  private timerSpec(key: string, i: number): TimerSpec {
    const r = this.rng;
    const kind = r.weighted({ cron: 9, every: 9, once: 2 });
    const schedule: ScheduleSpec =
      kind === 'cron'
        ? { cron: r.weighted({ [CRONS[0]]: 3, [CRONS[1]]: 2, [CRONS[2]]: 1 }) }
        : kind === 'every'
          ? { ...r.pick(EVERIES) }
          : { atInMs: r.int(15_000, Math.max(20_000, this.windowMs - 15_000)) };
    return {
      key,
      // A second app: its own lock, its own slots, its own overlap of changes.
      app: i % 3 === 2 ? 'chaos-b' : 'chaos',
      schedule,
      retry: r.chance(0.5) ? { maxAttempts: 3, backoffMs: 500 } : { maxAttempts: 1, backoffMs: 0 },
      misfirePolicy: r.weighted<MisfirePolicy>({ fire_once: 2, fire_all: 1, skip: 1 }),
      misfireThresholdMs: r.pick([5000, 15_000, 30_000]),
      overlapPolicy: r.weighted<OverlapPolicy>({ allow: 2, skip: 1, buffer_one: 1 }),
      timeoutMs: r.pick([3000, 8000, 25_000]),
    };
  }

  /** Plans a fault at `t` and its undoing; false when it would make more than MAX_FAULTS at once. */
  private fault(t: number): boolean {
    const r = this.rng;
    const kind = r.weighted({ sigterm: 3, sigkill: 3, sigstop: 2, mysql: 3, redis: 1, sink: 3 });
    // Undone by the end of the window at the latest (the restore would do it anyway).
    const end = (ms: number) => Math.min(t + ms, this.windowMs - 1000);
    const procFault = kind === 'sigterm' || kind === 'sigkill' || kind === 'sigstop';
    const span =
      kind === 'sigterm'
        ? SIGTERM_DOWN_MS
        : kind === 'sigkill'
          ? 10_000 + START_UP_MS
          : kind === 'sigstop'
            ? 30_000
            : kind === 'mysql'
              ? 60_000
              : kind === 'redis'
                ? REDIS_LOSS_MS
                : 30_000;
    const overlapping = this.faults.filter((f) => f.from < t + span && f.to > t);
    if (overlapping.length >= MAX_FAULTS) return false;
    // One MySQL cut, one receiver phase, one Redis loss at a time: each undoes only itself.
    if (!procFault && overlapping.some((f) => f.kind === kind)) return false;
    let slot = -1;
    if (procFault) {
      const taken = new Set(overlapping.flatMap((f) => f.procs));
      const free = Array.from({ length: this.options.procs }, (_, i) => i).filter((i) => !taken.has(i));
      // One process stays up whatever else happens.
      if (free.length < 2) return false;
      slot = r.pick(free);
    }
    const add = (to: number, procs: number[] = []) => this.faults.push({ kind, from: t, to, procs });
    switch (kind) {
      case 'sigterm': {
        const restartAt = end(r.int(1000, 5000));
        this.actions.push({ atMs: t, kind: 'signal', slot, signal: 'SIGTERM' });
        this.actions.push({ atMs: restartAt, kind: 'restart', slot });
        add(t + SIGTERM_DOWN_MS, [slot]);
        return true;
      }
      case 'sigkill': {
        const restartAt = end(r.int(1000, 10_000));
        this.actions.push({ atMs: t, kind: 'signal', slot, signal: 'SIGKILL' });
        this.actions.push({ atMs: restartAt, kind: 'restart', slot });
        add(restartAt + START_UP_MS, [slot]);
        return true;
      }
      case 'sigstop': {
        const contAt = end(r.int(5000, 30_000));
        this.actions.push({ atMs: t, kind: 'signal', slot, signal: 'SIGSTOP' });
        this.actions.push({ atMs: contAt, kind: 'signal', slot, signal: 'SIGCONT' });
        add(contAt, [slot]);
        return true;
      }
      case 'mysql': {
        const slots = r.chance(0.3)
          ? Array.from({ length: this.options.procs }, (_, i) => i)
          : [r.int(0, this.options.procs - 1)];
        const restoreAt = end(r.int(5000, 60_000));
        this.actions.push({ atMs: t, kind: 'mysql-cut', slots });
        this.actions.push({ atMs: restoreAt, kind: 'mysql-restore', slots });
        add(restoreAt);
        return true;
      }
      case 'redis':
        this.actions.push({ atMs: t, kind: 'redis-loss' });
        add(t + REDIS_LOSS_MS);
        return true;
      case 'sink': {
        const mode = r.weighted({ slow: 2, fail: 1, hang: 1 });
        const okAt = end(r.int(5000, 30_000));
        this.actions.push({
          atMs: t,
          kind: 'sink',
          mode,
          delayMs: mode === 'slow' ? r.int(1000, 20_000) : 0,
        });
        this.actions.push({ atMs: okAt, kind: 'sink', mode: 'ok', delayMs: 0 });
        add(okAt);
        return true;
      }
    }
  }

  /** Plans one change through the API at `t`, on a timer it fits. */
  private edit(t: number): void {
    const r = this.rng;
    const op = r.weighted({
      schedule: 3,
      end: 2,
      callback: 2,
      disable: 2,
      enable: 3,
      delete: 0.5,
      create: 1.5,
    });
    const live = [...this.timers.values()].filter(
      (s) => s.status !== 'deleted' && (s.endsAt === null || s.endsAt > t + 3000),
    );
    // One-shots are left to fire (or be deleted): a change to one is a race with its only run.
    const recurring = live.filter((s) => !('atInMs' in s.spec.schedule));
    const among = (list: TimerState[]) => (list.length > 0 ? r.pick(list) : null);
    switch (op) {
      case 'schedule': {
        const s = among(recurring);
        if (!s) return;
        const old = s.spec.schedule;
        const schedule: RecurringSchedule =
          'cron' in old
            ? { cron: r.pick(CRONS.filter((c) => c !== old.cron)) }
            : {
                ...r.pick(
                  EVERIES.filter((e) => 'every' in old && (e.every !== old.every || e.offset !== old.offset)),
                ),
              };
        s.spec = { ...s.spec, schedule };
        this.actions.push({ atMs: t, kind: 'patch-schedule', timer: s.spec.key, schedule });
        return;
      }
      case 'end': {
        const s = among(recurring);
        if (!s) return;
        const endInMs = r.int(5000, 60_000);
        s.endsAt = t + endInMs;
        this.actions.push({ atMs: t, kind: 'patch-end', timer: s.spec.key, endInMs });
        return;
      }
      case 'callback': {
        const s = among(recurring);
        if (!s) return;
        s.revision++;
        this.actions.push({ atMs: t, kind: 'patch-callback', timer: s.spec.key, revision: s.revision });
        return;
      }
      case 'disable': {
        const s = among(recurring.filter((x) => x.status === 'active'));
        if (!s) return;
        s.status = 'inactive';
        this.actions.push({ atMs: t, kind: 'disable', timer: s.spec.key });
        return;
      }
      case 'enable': {
        const s = among(recurring.filter((x) => x.status === 'inactive'));
        if (!s) return;
        s.status = 'active';
        this.actions.push({ atMs: t, kind: 'enable', timer: s.spec.key });
        return;
      }
      case 'delete': {
        const s = among(live);
        if (!s) return;
        s.status = 'deleted';
        this.actions.push({ atMs: t, kind: 'delete', timer: s.spec.key });
        return;
      }
      case 'create': {
        const spec = this.timerSpec(`c${this.created++}`, this.timers.size);
        if ('atInMs' in spec.schedule) spec.schedule = { atInMs: r.int(10_000, 40_000) };
        this.timers.set(spec.key, { spec, status: 'active', endsAt: null, revision: 0 });
        this.actions.push({ atMs: t, kind: 'create', timer: spec });
        return;
      }
    }
  }
}
