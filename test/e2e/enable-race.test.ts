import { describe, expect, it } from 'vitest';
import { apiCall, createTimers, sleep, useCluster } from '../helpers/cluster.js';
import { eventually } from '../helpers/stores.js';

/**
 * 120 timers of one app enabled at once, shortly before their instant, so the last ones
 * complete close to it. Every enable that returned before the instant must have its run
 * fire, once. How shortly is measured on the box: at least 3 s, or five times what 12
 * enables at once took. When none of the 120 returned in time (the box got busier between
 * the probe and the wave), the wave is sent again to new timers with twice the lead.
 */
const e2e = useCluster('enablerace');

const TRIES = 3;

/** Creates 120 inactive timers due at one instant, enables them `lead` ms before it, and says which returned in time. */
async function wave(
  lead: number,
): Promise<{ instant: number; ids: number[]; inTime: number[]; tookMs: number }> {
  const instant = Math.ceil((Date.now() + lead + 25_000) / 1000) * 1000;
  const at = new Date(instant);
  const cron = `${at.getUTCSeconds()} ${at.getUTCMinutes()} ${at.getUTCHours()} ${at.getUTCDate()} ${at.getUTCMonth() + 1} *`;
  const ids = await createTimers(e2e.cluster.api(), 120, {
    cron,
    status: 'inactive',
    callback: { url: e2e.sink.url() },
  });
  await sleep(instant - lead - Date.now());
  const returnedAt = new Map<number, number>();
  const startedAt = Date.now();
  await Promise.all(
    ids.map(async (id) => {
      await apiCall(e2e.cluster.api(), 'POST', `/api/v1/timers/${id}/enable`);
      returnedAt.set(id, Date.now());
    }),
  );
  const tookMs = Math.max(...returnedAt.values()) - startedAt;
  return { instant, ids, inTime: ids.filter((id) => returnedAt.get(id)! < instant), tookMs };
}

describe('concurrent enables right before the instant', () => {
  it('fires, once, the run of every timer whose enable returned before it', {
    timeout: 300_000,
  }, async () => {
    // Probes due on New Year's Day: their enables cost what the wave's do, and they do not fire.
    const probes = await createTimers(e2e.cluster.api(), 12, {
      cron: '0 0 0 1 1 *',
      status: 'inactive',
      callback: { url: e2e.sink.url() },
    });
    const probing = Date.now();
    await Promise.all(probes.map((id) => apiCall(e2e.cluster.api(), 'POST', `/api/v1/timers/${id}/enable`)));
    let lead = Math.max(3000, 5 * (Date.now() - probing));
    let sent = await wave(lead);
    for (let tries = 1; sent.inTime.length === 0 && tries < TRIES; tries++) {
      lead = Math.max(2 * lead, 2 * sent.tookMs);
      sent = await wave(lead);
    }
    const { instant, inTime, tookMs } = sent;
    expect(
      inTime.length,
      `none of 120 enables sent ${lead} ms ahead returned in time, ${TRIES} times`,
    ).toBeGreaterThan(0);

    await eventually(
      () => inTime.every((id) => e2e.sink.deliveries.some((d) => d.taskId === `${id}_${instant}`)),
      'every run of a timer enabled in time',
      20_000,
    ).catch(() => undefined);
    // Not a wait for the runs (those were polled for): the window a second copy would arrive in.
    await sleep(2000);
    const missing = inTime.filter((id) => !e2e.sink.deliveries.some((d) => d.taskId === `${id}_${instant}`));
    console.log(
      `enable-race: 120 enables in ${tookMs} ms, sent ${lead} ms ahead, in time ${inTime.length}/120, missing ${missing.length}`,
    );
    expect(missing).toEqual([]);
    const counts = e2e.sink.countByTask();
    expect([...counts.values()].every((n) => n === 1)).toBe(true);
  });
});
