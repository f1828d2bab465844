import { describe, expect, it } from 'vitest';
import { apiCall, createTimers, settledRun, useCluster } from '../helpers/cluster.js';
import { eventually } from '../helpers/stores.js';

/**
 * The emergency brake on two real processes with every role (two executors): a pause
 * sent to one process's API stops the calls of both within 2 s, the runs due meanwhile
 * are recorded skipped with the note, a run now still goes, and a resume sent to the
 * other process brings the calls back within 2 s.
 */

const NOTE = 'drill 42: receivers under maintenance';
/** How long a pause or a resume may take to reach every executor. */
const REACH_MS = 2000;

const e2e = useCluster('brake', { size: 2 });

const scheduled = () => e2e.sink.deliveries.filter((d) => d.headers['x-xtimer-trigger'] === 'schedule');

/** The whole seconds in (from, to): the runs an every-second timer has due there. */
function secondsBetween(from: number, to: number): number[] {
  const out: number[] = [];
  for (let t = Math.floor(from / 1000) * 1000 + 1000; t < to; t += 1000) out.push(t);
  return out;
}

/** A timer's runs due in [from, to), by task id, as the tasks API lists them. */
async function runsBetween(id: number, from: number, to: number): Promise<Map<string, any>> {
  const page = await apiCall(
    e2e.cluster.apiOf(1),
    'GET',
    `/api/v1/timers/${id}/tasks?from=${from}&to=${to}&limit=500`,
  );
  return new Map(page.items.map((t: { id: string }) => [t.id, t]));
}

/** xtimer_runs_total{outcome="skipped"} summed over both processes. */
async function skippedCounted(): Promise<number> {
  let sum = 0;
  for (const i of [0, 1]) {
    const text = await (await fetch(`${e2e.cluster.apiOf(i)}/metrics`)).text();
    const line = text.split('\n').find((l) => l.startsWith('xtimer_runs_total{outcome="skipped"}'));
    sum += line ? Number(line.split(' ')[1]) : 0;
  }
  return sum;
}

describe('the emergency brake', () => {
  it('stops every process within 2 s, records what was due skipped, lets a run now through, and resumes', async () => {
    const ids = await createTimers(e2e.cluster.apiOf(0), 10, { callback: { url: e2e.sink.url('/tick') } });
    await eventually(
      () => ids.every((id) => scheduled().filter((d) => d.timerId === id).length >= 2),
      'every timer firing',
      30_000,
    );
    const skippedBefore = await skippedCounted();

    const paused = await apiCall(e2e.cluster.apiOf(0), 'POST', '/api/v1/pause', { note: NOTE });
    const pausedAt = Date.now();
    expect(paused).toEqual({ paused: true, note: NOTE, pausedAt: expect.any(String), pausedBy: 'open' });
    // MySQL has it: the other process answers the same.
    expect(await apiCall(e2e.cluster.apiOf(1), 'GET', '/api/v1/pause')).toEqual(paused);

    // Runs due from 2 s after the pause on are recorded skipped with the note, none called.
    const window = secondsBetween(pausedAt + REACH_MS, pausedAt + REACH_MS + 4000);
    await eventually(
      async () => {
        for (const id of ids) {
          const runs = await runsBetween(id, window[0]!, window.at(-1)! + 1);
          if (!window.every((t) => runs.get(`${id}_${t}`)?.status === 'skipped')) return false;
        }
        return true;
      },
      'the runs due while paused recorded skipped',
      20_000,
      250,
    );

    // A run now is a user's ask: it goes through the pause.
    const run = await apiCall(e2e.cluster.apiOf(1), 'POST', `/api/v1/timers/${ids[0]}/trigger`);
    expect(await settledRun(e2e.cluster.apiOf(1), run.id, 20_000)).toMatchObject({
      status: 'succeeded',
      trigger: 'manual',
    });
    expect(
      e2e.sink.deliveries.filter((d) => d.taskId === run.id).map((d) => d.headers['x-xtimer-trigger']),
    ).toEqual(['manual']);

    const resumeSentAt = Date.now();
    const resumed = await apiCall(e2e.cluster.apiOf(1), 'POST', '/api/v1/resume');
    const resumedAt = Date.now();
    expect(resumed).toEqual({
      paused: false,
      ended: { note: NOTE, pausedAt: paused.pausedAt, pausedBy: 'open' },
    });

    // Every call that reached the sink after the brake took hold was due before it did.
    const late = scheduled().filter(
      (d) =>
        d.arrivedAt > pausedAt + REACH_MS &&
        d.arrivedAt < resumeSentAt &&
        d.scheduledAt > pausedAt + REACH_MS,
    );
    expect(late.map((d) => d.taskId)).toEqual([]);
    expect(
      scheduled()
        .filter((d) => d.scheduledAt > pausedAt + REACH_MS && d.scheduledAt < resumeSentAt)
        .map((d) => d.taskId),
    ).toEqual([]);

    // Everything due while paused is accounted for: skipped with the note, and counted.
    const whilePaused = secondsBetween(pausedAt + REACH_MS, resumeSentAt);
    let skipped = 0;
    await eventually(
      async () => {
        skipped = 0;
        for (const id of ids) {
          const runs = await runsBetween(id, whilePaused[0]!, whilePaused.at(-1)! + 1);
          for (const t of whilePaused) {
            const r = runs.get(`${id}_${t}`);
            if (r?.status !== 'skipped') return false;
            expect(r.error).toBe(`paused: ${NOTE}`);
            skipped++;
          }
        }
        return true;
      },
      'every run due while paused settled',
      10_000,
      250,
    );
    expect(skipped).toBe(ids.length * whilePaused.length);
    expect((await skippedCounted()) - skippedBefore).toBeGreaterThanOrEqual(skipped);

    // Within 2 s of the resume every timer is called again: each run due after that, once.
    const after = secondsBetween(resumedAt + REACH_MS, resumedAt + REACH_MS + 3000);
    await eventually(
      () =>
        ids.every((id) =>
          after.every((t) => scheduled().filter((d) => d.taskId === `${id}_${t}`).length === 1),
        ),
      'every timer firing again',
      15_000,
    );
    expect(await apiCall(e2e.cluster.apiOf(0), 'GET', '/api/v1/pause')).toEqual({ paused: false });
  });
});
