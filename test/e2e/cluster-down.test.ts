import { describe, expect, it } from 'vitest';
import { apiCall, createTimers, sleep, useCluster } from '../helpers/cluster.js';
import { eventually } from '../helpers/stores.js';

/**
 * Cluster down and back: every process stopped for 3 minutes, then started.
 * One-minute migration windows, so the outage also leaves windows unplanned that the
 * migrator must catch up. Each misfire policy then behaves as documented.
 */
const DOWN_MS = 180_000;
const THRESHOLD_MS = 60_000;
const e2e = useCluster('clusterdown', { size: 2, storeEnv: { MIGRATE_STEP_MINUTES: '1' } });

async function runsOf(timerId: number): Promise<any[]> {
  const page = await apiCall(e2e.cluster.api(), 'GET', `/api/v1/timers/${timerId}/tasks?limit=500`);
  return page.items;
}

describe('all processes stopped for 3 minutes', () => {
  it('catches up per misfire policy: fire_all fires every missed run, skip none, fire_once the latest', {
    timeout: 420_000,
  }, async () => {
    const callback = { url: e2e.sink.url() };
    const [fireAll] = await createTimers(e2e.cluster.api(), 1, {
      cron: '*/5 * * * * *',
      misfirePolicy: 'fire_all',
      callback,
    });
    const [skip] = await createTimers(e2e.cluster.api(), 1, {
      cron: '*/5 * * * * *',
      misfirePolicy: 'skip',
      callback,
    });
    const [fireOnce] = await createTimers(e2e.cluster.api(), 1, {
      cron: '*/10 * * * * *',
      misfirePolicy: 'fire_once',
      callback,
    });
    const ids = [fireAll!, skip!, fireOnce!];
    await eventually(() => ids.every((id) => e2e.sink.forTimer(id).length > 0), 'each timer firing', 30_000);

    await e2e.cluster.stopAll('SIGTERM');
    const downFrom = Date.now();
    await sleep(DOWN_MS);
    const restartedAt = Date.now();
    await e2e.cluster.startAll();

    // Runs owed while down: (downFrom + 1 s) .. restartedAt.
    const owed = (stepS: number) => {
      const out: number[] = [];
      for (
        let t = Math.ceil((downFrom + 1000) / (stepS * 1000)) * stepS * 1000;
        t < restartedAt;
        t += stepS * 1000
      )
        out.push(t);
      return out;
    };
    const settled = async (id: number, times: number[]) => {
      const runs = await runsOf(id);
      const byTime = new Map(runs.map((r) => [Date.parse(r.runAt), r]));
      return times.every((t) => ['succeeded', 'missed'].includes(byTime.get(t)?.status)) && byTime;
    };

    // fire_all: every missed run fires, once.
    const allTimes = owed(5);
    await eventually(() => settled(fireAll!, allTimes), 'fire_all runs settled', 150_000, 2000);
    const allDelivered = e2e.sink
      .forTimer(fireAll!)
      .filter((d) => d.scheduledAt > downFrom + 1000 && d.scheduledAt < restartedAt);
    expect(allDelivered.map((d) => d.scheduledAt).sort((a, b) => a - b)).toEqual(allTimes);

    // skip: what was later than the threshold when picked up is recorded missed, not sent.
    const skipTimes = owed(5);
    const skipRuns = await eventually(() => settled(skip!, skipTimes), 'skip runs settled', 150_000, 2000);
    const skipSent = e2e.sink
      .forTimer(skip!)
      .filter((d) => d.scheduledAt > downFrom + 1000 && d.scheduledAt < restartedAt);
    expect(skipSent.every((d) => d.arrivedAt - d.scheduledAt <= THRESHOLD_MS + 2000)).toBe(true);
    const skipMissed = skipTimes.filter((t) => skipRuns.get(t)?.status === 'missed');
    expect(skipMissed.length).toBeGreaterThan(0);
    expect(skipMissed.length + skipSent.length).toBe(skipTimes.length);

    // fire_once: the runs within the threshold fire, and of the missed ones only the latest.
    const onceTimes = owed(10);
    const onceRuns = await eventually(
      () => settled(fireOnce!, onceTimes),
      'fire_once runs settled',
      150_000,
      2000,
    );
    const onceSent = e2e.sink
      .forTimer(fireOnce!)
      .filter((d) => d.scheduledAt > downFrom + 1000 && d.scheduledAt < restartedAt);
    const lateSent = onceSent.filter((d) => d.arrivedAt - d.scheduledAt > THRESHOLD_MS);
    expect(lateSent).toHaveLength(1);
    const onceMissed = onceTimes.filter((t) => onceRuns.get(t)?.status === 'missed');
    expect(onceMissed.length).toBe(onceTimes.length - onceSent.length);
    expect(Math.max(...onceMissed)).toBeLessThan(lateSent[0]!.scheduledAt);

    // Nothing was delivered twice.
    const counts = e2e.sink.countByTask();
    expect([...counts.entries()].filter(([, n]) => n > 1)).toEqual([]);
    console.log(
      `cluster-down: fire_all owed=${allTimes.length} sent=${allDelivered.length}; ` +
        `skip owed=${skipTimes.length} sent=${skipSent.length} missed=${skipMissed.length}; ` +
        `fire_once owed=${onceTimes.length} sent=${onceSent.length} (late ${lateSent.length}) missed=${onceMissed.length}`,
    );
  });
});
