/**
 * Exit codes (docs/timers-as-code.md): 0 ok, 1 the API refused or could not be reached,
 * 2 the command line was wrong, 3 `plan --detailed-exitcode` found changes.
 */
export const EXIT = { ok: 0, api: 1, usage: 2, changes: 3 } as const;

/** A command used wrongly: exit 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** The API answered with an error: its code and message are printed, exit 1. */
export class ApiError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status: number,
    readonly details: ReadonlyArray<{ path: string; message: string }> = [],
  ) {
    super(message);
    this.name = 'ApiError';
  }
}
