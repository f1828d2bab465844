import type { Logger } from '../../../observability/logger.js';

export type SliceMembers = 'auto' | 'compact' | 'long';

/**
 * The BullMQ worker name of a trigger that reads compact slice members. A trigger worker
 * of an earlier release has no name, and reads only the long form.
 */
export const COMPACT_READER = 'compact-slices';
/** How long one look at the connected trigger workers is trusted. */
const LOOK_EVERY_MS = 15_000;

/** A worker connected to the trigger queue, as BullMQ's getWorkers lists it (its CLIENT LIST line). */
export interface ConnectedWorker {
  /** The connection's client name: `<prefix>:<queue, base64>`, then `:w:<worker name>` if it has one. */
  rawname?: string;
}

/**
 * Which form runs go into slices in (task-key.ts sliceEntry). `auto`: compact, unless a
 * trigger worker that reads only the long form is connected. A run it cannot read would
 * never be walked if its slice fell to it, so while a roll from an earlier release lasts,
 * runs go in the long form. If the workers cannot be listed (a Redis without CLIENT LIST),
 * the long form too.
 */
export class SliceForm {
  private long = true;
  private lookedAt = Number.NEGATIVE_INFINITY;
  private looking: Promise<boolean> | undefined;

  constructor(
    private readonly mode: SliceMembers,
    private readonly workers: () => Promise<ConnectedWorker[]>,
    private readonly logger?: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  async isLong(): Promise<boolean> {
    if (this.mode !== 'auto') return this.mode === 'long';
    if (this.now() - this.lookedAt < LOOK_EVERY_MS) return this.long;
    this.looking ??= this.look().finally(() => {
      this.looking = undefined;
    });
    return this.looking;
  }

  private async look(): Promise<boolean> {
    const was = Number.isFinite(this.lookedAt) ? this.long : false;
    try {
      const workers = await this.workers();
      this.long = workers.some((w) => !w.rawname?.endsWith(`:w:${COMPACT_READER}`));
    } catch {
      this.long = true;
    }
    this.lookedAt = this.now();
    // Said when it changes, and at the first look only if long (the roll is news, compact is not).
    if (this.long !== was) {
      this.logger?.info(
        { form: this.long ? 'long' : 'compact' },
        this.long
          ? 'slices written in the long form: a trigger of an earlier release is connected, or the workers cannot be listed'
          : 'slices written in the compact form',
      );
    }
    return this.long;
  }
}
