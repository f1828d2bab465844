/** Where the next page of overdue rows starts: at `runAt`, past the rows of that instant read already. */
export interface OverdueCursor {
  runAt: number;
  seen: number[];
}

export interface OverduePage<T> {
  runs: T[];
  /** Where the next page starts; null when this one was the last. */
  next: OverdueCursor | null;
}

interface OverdueRow {
  id: number;
  run_at: Date;
}

/**
 * A page of rows read `ORDER BY run_at` alone, from the cursor's instant on. Ordered by
 * `run_at, id`, MariaDB sorts every matching row of the partitioned table first: close
 * to a minute under a backlog of a million. The rows of the cursor's instant read
 * already are dropped here, so `read` is asked for that many more.
 */
export async function overduePage<R extends OverdueRow, T>(
  toRun: (row: R) => T,
  read: (fromMs: number | null, limit: number) => Promise<R[]>,
  limit: number,
  after: OverdueCursor | undefined,
): Promise<OverduePage<T>> {
  const seen = new Set(after?.seen ?? []);
  const asked = limit + seen.size;
  const rows = await read(after ? after.runAt : null, asked);
  const fresh = rows.filter((r) => !seen.has(Number(r.id)));
  const last = fresh.at(-1);
  if (rows.length < asked || !last) return { runs: fresh.map(toRun), next: null };
  const lastAt = last.run_at.getTime();
  const atLast = fresh.filter((r) => r.run_at.getTime() === lastAt).map((r) => Number(r.id));
  return {
    runs: fresh.map(toRun),
    next: { runAt: lastAt, seen: after?.runAt === lastAt ? [...after.seen, ...atLast] : atLast },
  };
}
