/** A running role of this process (trigger, executor, …): what the composition root stops at shutdown. */
export interface RunningRole {
  close(): Promise<void>;
}
