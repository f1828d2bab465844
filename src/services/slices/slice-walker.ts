import { MINUTE, parseMinuteKey, sliceId } from '../../domain/plan/slice.js';
import type { SliceRun } from '../../domain/plan/task-key.js';
import type { Logger } from '../../observability/logger.js';
import type { Metrics } from '../../observability/metrics.js';
import type { SliceJobData } from '../../storage/redis/queues.js';
import type { SliceReader, WindowRead } from './slice-reader.js';

const WINDOW_MS = 1000;
const READ_TRIES = 5;
/** How often a walk renews its slice's lock (SLICE_CLAIM_TTL_MS): a walk running late keeps it. */
export const SLICE_HOLD_EVERY_MS = 10_000;

export interface SliceWalkerDeps {
  reader: Pick<SliceReader, 'read'>;
  /** Queues a window's runs into `execute`. */
  fanOut(runs: SliceRun[], slice: string): Promise<void>;
  /**
   * Renews the slice's lock while it is walked (its time to live from now on); false if
   * another claim holds it. Under overload a walk ends late: a lock that lapsed before the
   * ack let the slice be claimed and walked again, all its runs queued twice over.
   */
  hold(data: SliceJobData): Promise<boolean>;
  /** Acks the walked slice (its lock → 130 s); false if another claim holds it. */
  ack(data: SliceJobData): Promise<boolean>;
  metrics: Pick<Metrics, 'sliceLag' | 'slices'>;
  /** How far ahead of each 1 s window it is read (PREREAD_MS). */
  prereadMs: number;
  logger: Logger;
  now(): number;
  /** Resolves after `ms`, or at once when `signal` aborts. */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
}

export type WalkResult =
  | { kind: 'walked'; runs: number; acked: boolean; source: WindowRead['source'] }
  /** Stopped part-way (shutdown): the slice must go back for another trigger to continue. */
  | { kind: 'stopped' };

/**
 * Walks one slice: its minute in wall-clock 1 s windows, each read PREREAD_MS
 * before it starts and fanned into `execute`, where the executor holds each run until its
 * due ms. Runs already overdue (takeover, late start) go out in the first read, at once.
 * The slice is acked only when the whole minute was walked.
 */
export class SliceWalker {
  /** The walks under way here, by slice and the time its job was queued. */
  private readonly underWay = new Map<string, Promise<WalkResult>>();

  constructor(private readonly d: SliceWalkerDeps) {}

  /**
   * Walks the slice unless this walker already walks it for the same job (`queuedAt`: when
   * the job was queued, which a job handed back keeps): that call shares the walk. An
   * event loop lagging past a trigger job's lock (10 s) lets BullMQ's stall check hand
   * the job back, and the same process may fetch it again while it still walks it; four
   * walks of one slice at once queued each of its overdue runs four times. A job queued
   * anew (the slice claimed again after Redis lost its data) gets a walk of its own.
   */
  walkOnce(data: SliceJobData, queuedAt: number, stopping: AbortSignal): Promise<WalkResult> {
    const key = `${sliceId(data.minute, data.bucket)}@${queuedAt}`;
    const under = this.underWay.get(key);
    if (under) return under;
    const walk = this.walk(data, stopping).finally(() => this.underWay.delete(key));
    this.underWay.set(key, walk);
    return walk;
  }

  async walk(data: SliceJobData, stopping: AbortSignal): Promise<WalkResult> {
    const d = this.d;
    const slice = sliceId(data.minute, data.bucket);
    const log = d.logger.child({ slice });
    const start = parseMinuteKey(data.minute);
    const end = start + MINUTE;
    let cursor = start;
    let fanned = 0;
    let source: WindowRead['source'] = 'redis';
    d.metrics.sliceLag.observe(Math.max(0, d.now() - (start - d.prereadMs)) / 1000);
    let heldAt = d.now();
    while (cursor < end) {
      if (stopping.aborted) return { kind: 'stopped' };
      if (d.now() - heldAt >= SLICE_HOLD_EVERY_MS) {
        heldAt = d.now();
        if (!(await d.hold(data).catch(() => true))) log.warn('slice claimed by another while walked');
      }
      const wait = cursor - d.prereadMs - d.now();
      if (wait > 0) {
        await d.sleep(wait, stopping);
        continue;
      }
      // Everything due before the next wall-clock second after now + preread: on time
      // that is one window; after a takeover it is all the overdue runs at once.
      const upto = Math.min(
        end,
        Math.max(cursor + WINDOW_MS, Math.floor((d.now() + d.prereadMs) / WINDOW_MS) * WINDOW_MS + WINDOW_MS),
      );
      const read = await this.readWithRetry(log, data, cursor, upto, stopping);
      // Say so when MySQL actually stands in for Redis (not for an empty minute of a fresh start).
      if (read.source !== source && (read.source === 'redis' || read.runs.length > 0)) {
        source = read.source;
        log.warn(
          { source, runs: read.runs.length },
          source === 'mysql' ? 'slice missing in Redis; reading runs from MySQL' : 'slice back in Redis',
        );
      }
      if (read.runs.length > 0) await d.fanOut(read.runs, slice);
      fanned += read.runs.length;
      cursor = upto;
    }
    const acked = await d.ack(data);
    if (!acked) log.warn('slice claimed by another before the ack; it may be walked again');
    d.metrics.slices.inc({ acked: String(acked) });
    log.debug({ runs: fanned, acked, lateMs: d.now() - end }, 'slice walked');
    return { kind: 'walked', runs: fanned, acked, source };
  }

  private async readWithRetry(
    log: Logger,
    data: SliceJobData,
    from: number,
    to: number,
    stopping: AbortSignal,
  ): Promise<WindowRead> {
    for (let tries = 1; ; tries++) {
      try {
        return await this.d.reader.read(data.minute, data.bucket, from, to);
      } catch (err) {
        if (tries >= READ_TRIES || stopping.aborted) throw err;
        log.warn({ err: (err as Error).message, tries }, 'slice window read failed; retrying');
        await this.d.sleep(200 * tries, stopping);
      }
    }
  }
}

/** A sleep that an AbortSignal cuts short. */
export function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
