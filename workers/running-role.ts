import type { Abandoned } from '../src/shutdown.js';

/** A started role (executor, trigger, scheduler, migrator, notifier): what shutdown needs of it. */
export interface RunningRole {
  close(): Promise<void>;
  /** A second signal cut the shutdown short: keep what can be kept at once, and say what is left behind. */
  abandon?(): Promise<Abandoned>;
}
