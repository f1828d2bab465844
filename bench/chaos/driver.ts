/**
 * Carries out the plan's actions at their times against the real parts: the fleet's
 * processes and proxies, the sink's manners, Redis keys, and timers through the API. Each
 * action is journaled as it was done (a change to a timer with the definition the API
 * answered), or as skipped with the reason.
 */

import type { ChaosStores } from './chaos-stores.js';
import type { RunRow } from './checker.js';
import type { Fleet } from './fleet.js';
import type { DefineCause, Journal } from './journal.js';
import type { ChaosAction, RecurringSchedule, TimerSpec } from './plan.js';
import type { ChaosSink } from './sink-control.js';
import { type TimerAnswer, TimerApi } from './timer-api.js';
import { defOf } from './timer-def.js';

/** How long a change waits for a process that can take it (up, thawed, with MySQL). */
const API_WAIT_MS = 15_000;
/** How long the driver tries to see a timer after a change to it failed. */
const OBSERVE_MS = 60_000;

export interface DriverParts {
  fleet: Fleet;
  sink: ChaosSink;
  stores: ChaosStores;
  journal: Journal;
}

export class ChaosDriver {
  /** Plan key → timer id, once created. */
  private readonly ids = new Map<string, number>();
  private readonly specs = new Map<string, TimerSpec>();
  /** One timer's changes one after the other, in the plan's order. */
  private readonly chains = new Map<string, Promise<void>>();
  private readonly inFlight = new Set<Promise<void>>();
  /** Rows read just before their timer was deleted (the delete takes them away). */
  readonly deletedRows: RunRow[] = [];

  constructor(private readonly p: DriverParts) {}

  get timers(): number {
    return this.ids.size;
  }

  /** Creates the plan's first timers, a few at a time. */
  async createInitial(specs: TimerSpec[]): Promise<void> {
    const queue = [...specs];
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        for (let spec = queue.shift(); spec; spec = queue.shift()) await this.create(spec);
      }),
    );
  }

  /** Does each action at `t0 + atMs`, without waiting for one to finish before the next is due. */
  async play(actions: readonly ChaosAction[], t0: number, stopped: () => boolean): Promise<void> {
    for (const a of actions) {
      const wait = t0 + a.atMs - Date.now();
      if (wait > 0) await sleep(wait);
      if (stopped()) return;
      const done = this.perform(a).catch((err: unknown) => {
        this.skip(describe(a), `failed: ${(err as Error).message}`);
      });
      this.inFlight.add(done);
      void done.finally(() => this.inFlight.delete(done));
    }
  }

  /** Waits for the actions still under way, up to `timeoutMs`. */
  async drain(timeoutMs: number): Promise<void> {
    await Promise.race([Promise.all([...this.inFlight]), sleep(timeoutMs)]);
  }

  /** The receiver answering 200 at once again. */
  async sinkOk(): Promise<void> {
    await this.p.sink.phase('ok');
    this.p.journal.write({ kind: 'sink.phase', at: Date.now(), mode: 'ok', delayMs: 0 });
  }

  private perform(a: ChaosAction): Promise<void> {
    const { fleet, sink, stores, journal } = this.p;
    switch (a.kind) {
      case 'signal':
        fleet.signal(a.slot, a.signal);
        return Promise.resolve();
      case 'restart':
        return fleet.restart(a.slot);
      case 'mysql-cut':
        fleet.cutMysql(a.slots);
        return Promise.resolve();
      case 'mysql-restore':
        fleet.restoreMysql(a.slots);
        return Promise.resolve();
      case 'redis-loss':
        return stores.loseRedisKeys().then((loss) => {
          journal.write({ kind: 'redis.loss', ...loss });
        });
      case 'sink':
        return sink.phase(a.mode, a.delayMs).then(() => {
          journal.write({ kind: 'sink.phase', at: Date.now(), mode: a.mode, delayMs: a.delayMs });
        });
      case 'create':
        return this.chain(a.timer.key, () => this.create(a.timer));
      case 'patch-schedule':
        return this.change(a.timer, 'patch-schedule', 'patch', (api, id) =>
          api.patch(id, scheduleBody(a.schedule)),
        );
      case 'patch-end':
        return this.change(a.timer, 'patch-end', 'patch', (api, id) =>
          api.patch(id, { endAt: new Date(Date.now() + a.endInMs).toISOString() }),
        );
      case 'patch-callback':
        return this.change(a.timer, 'patch-callback', 'patch', (api, id) =>
          api.patch(id, { callback: this.callback(this.specs.get(a.timer)!, a.revision) }),
        );
      case 'disable':
        return this.change(a.timer, 'disable', 'disable', (api, id) => api.disable(id));
      case 'enable':
        return this.change(a.timer, 'enable', 'enable', (api, id) => api.enable(id));
      case 'delete':
        return this.change(a.timer, 'delete', 'patch', async (api, id) => {
          await api.delete(id);
          return 'deleted';
        });
    }
  }

  private chain(key: string, step: () => Promise<void>): Promise<void> {
    const next = (this.chains.get(key) ?? Promise.resolve()).then(step);
    this.chains.set(
      key,
      next.catch(() => undefined),
    );
    return next;
  }

  private async create(spec: TimerSpec): Promise<void> {
    this.specs.set(spec.key, spec);
    const base = await this.apiBase();
    if (!base) return this.skip(`create ${spec.key}`, 'no process could take an API call');
    const s = spec.schedule;
    const body = {
      app: spec.app,
      name: spec.key,
      ...('atInMs' in s ? { at: new Date(Date.now() + s.atInMs).toISOString() } : scheduleBody(s)),
      timezone: 'UTC',
      callback: this.callback(spec, 0),
      retry: spec.retry,
      misfirePolicy: spec.misfirePolicy,
      misfireThresholdMs: spec.misfireThresholdMs,
      overlapPolicy: spec.overlapPolicy,
      status: 'active',
    };
    const sentAt = Date.now();
    try {
      const timer = await new TimerApi(base).create(body);
      this.ids.set(spec.key, timer.id);
      this.record(spec.key, timer.id, sentAt, 'create', timer);
    } catch (err) {
      this.p.journal.write({
        kind: 'api.error',
        at: Date.now(),
        sentAt,
        op: 'create',
        key: spec.key,
        error: String(err),
      });
      const timer = await this.look((api) => api.find(spec.app, spec.key));
      if (timer) {
        this.ids.set(spec.key, timer.id);
        this.record(spec.key, timer.id, sentAt, 'observe', timer);
      }
    }
  }

  /** A change to a created timer, journaled with what the API answered, or with what a look finds after it failed. */
  private change(
    key: string,
    op: string,
    cause: DefineCause,
    send: (api: TimerApi, id: number) => Promise<TimerAnswer | 'deleted'>,
  ): Promise<void> {
    return this.chain(key, async () => {
      const id = this.ids.get(key);
      if (id === undefined) return this.skip(`${op} ${key}`, 'the timer was never created');
      const base = await this.apiBase();
      if (!base) return this.skip(`${op} ${key}`, 'no process could take an API call');
      if (op === 'delete') this.deletedRows.push(...(await this.p.stores.rows(id)));
      const sentAt = Date.now();
      try {
        this.record(key, id, sentAt, cause, await send(new TimerApi(base), id));
      } catch (err) {
        this.p.journal.write({ kind: 'api.error', at: Date.now(), sentAt, op, key, error: String(err) });
        const seen = await this.look(async (api) => (await api.get(id)) ?? 'deleted');
        if (seen) this.record(key, id, sentAt, 'observe', seen);
      }
    });
  }

  private record(
    key: string,
    timerId: number,
    sentAt: number,
    cause: DefineCause,
    answer: TimerAnswer | 'deleted',
  ) {
    const at = Date.now();
    if (answer === 'deleted') this.p.journal.write({ kind: 'timer.delete', at, sentAt, timerId, key });
    else this.p.journal.write({ kind: 'timer.define', at, sentAt, timerId, key, cause, def: defOf(answer) });
  }

  /** Asks a process that can answer, until one does (null after OBSERVE_MS, or if `ask` finds nothing). */
  private async look<T>(ask: (api: TimerApi) => Promise<T | null>): Promise<T | null> {
    const deadline = Date.now() + OBSERVE_MS;
    while (Date.now() < deadline) {
      const base = this.p.fleet.apiBase();
      if (base) {
        try {
          return await ask(new TimerApi(base));
        } catch {
          // that process could not answer after all: try again
        }
      }
      await sleep(1000);
    }
    return null;
  }

  private async apiBase(): Promise<string | null> {
    const deadline = Date.now() + API_WAIT_MS;
    for (;;) {
      const base = this.p.fleet.apiBase();
      if (base || Date.now() > deadline) return base;
      await sleep(250);
    }
  }

  /** Each revision its own path, so the sink's log shows which definition made a call. */
  private callback(spec: TimerSpec, revision: number) {
    return {
      url: this.p.sink.url(`/hook/${spec.key}/r${revision}`),
      method: 'POST',
      timeoutMs: spec.timeoutMs,
    };
  }

  private skip(action: string, why: string): void {
    this.p.journal.write({ kind: 'skip', at: Date.now(), action, why });
  }
}

function scheduleBody(s: RecurringSchedule): Record<string, string> {
  return 'cron' in s ? { cron: s.cron } : { every: s.every, offset: s.offset };
}

function describe(a: ChaosAction): string {
  if (a.kind === 'signal') return `${a.signal} p${a.slot}`;
  if ('timer' in a) return `${a.kind} ${typeof a.timer === 'string' ? a.timer : a.timer.key}`;
  return a.kind;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
