/** A started role (executor, trigger, scheduler, migrator, notifier): what shutdown needs of it. */
export interface Role {
  close(): Promise<void>;
}
