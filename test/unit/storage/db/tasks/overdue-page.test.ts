import { describe, expect, it } from 'vitest';
import { type OverdueCursor, overduePage } from '../../../../../src/storage/db/tasks/overdue-page.js';

/**
 * Paging by run_at alone, as MariaDB answers `ORDER BY run_at LIMIT n`: rows of one
 * instant in no order the pager can rely on. Every row is read once, whether the reader
 * settles what it reads (rows leave the table) or leaves it there.
 */
interface Row {
  id: number;
  run_at: Date;
}

function table(rows: Row[]) {
  const live = new Map(rows.map((r) => [r.id, r]));
  return {
    settle: (ids: number[]) => {
      for (const id of ids) live.delete(id);
    },
    // Ties come highest id first: any order but the one an id cursor would need.
    read: async (fromMs: number | null, limit: number) =>
      [...live.values()]
        .filter((r) => fromMs === null || r.run_at.getTime() >= fromMs)
        .sort((a, b) => a.run_at.getTime() - b.run_at.getTime() || b.id - a.id)
        .slice(0, limit),
  };
}

function rowsAt(instants: Array<[number, number]>): Row[] {
  let id = 0;
  return instants.flatMap(([at, count]) =>
    Array.from({ length: count }, () => ({ id: ++id, run_at: new Date(at) })),
  );
}

async function readAll(t: ReturnType<typeof table>, limit: number, settle: boolean): Promise<number[]> {
  const read: number[] = [];
  let after: OverdueCursor | undefined;
  for (let page = 0; page < 100; page++) {
    const got = await overduePage((r: Row) => r.id, t.read, limit, after);
    read.push(...got.runs);
    if (settle) t.settle(got.runs);
    if (got.next === null) return read;
    after = got.next;
  }
  throw new Error('did not end');
}

describe('overduePage', () => {
  const rows = rowsAt([
    [1000, 10],
    [2000, 3],
    [3000, 1],
  ]);

  it('reads every row once when the reader leaves them all (an instant larger than a page)', async () => {
    const read = await readAll(table(rows), 4, false);
    expect(read.sort((a, b) => a - b)).toEqual(rows.map((r) => r.id));
  });

  it('reads every row once when the reader settles each page', async () => {
    const read = await readAll(table(rows), 4, true);
    expect(read.sort((a, b) => a - b)).toEqual(rows.map((r) => r.id));
  });

  it('ends on a short page', async () => {
    expect(await overduePage((r: Row) => r.id, table(rows).read, 20, undefined)).toMatchObject({
      next: null,
    });
  });
});
