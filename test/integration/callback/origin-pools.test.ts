import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { CONNECTIONS_PER_SHARD, OriginPools } from '../../../src/callback/origin-pools.js';

/** A receiver that holds every request until `release()`, counting those held at once. */
async function holdingReceiver() {
  const held: Array<() => void> = [];
  let peak = 0;
  const server: Server = createServer((req, res) => {
    req.resume();
    held.push(() => res.end('ok'));
    peak = Math.max(peak, held.length);
  });
  await new Promise<void>((r) => server.listen({ port: 0, host: '127.0.0.1', backlog: 4096 }, r));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    held: () => held.length,
    peak: () => peak,
    release: () => {
      for (const answer of held.splice(0)) answer();
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

const get = (pools: OriginPools, origin: string) =>
  pools.with(origin, async (pool) => {
    const res = await pool.request({ path: '/', method: 'GET' });
    return res.body.text();
  });

let cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup = [];
});

describe('OriginPools: one origin’s connections, split over small pools', () => {
  it('keeps one pool for a receiver called one request at a time', async () => {
    const receiver = await holdingReceiver();
    const pools = new OriginPools(8192, {});
    cleanup.push(
      () => receiver.close(),
      () => pools.close(),
    );
    for (let i = 0; i < 5; i++) {
      const answer = get(pools, receiver.origin);
      await waitFor(() => receiver.held() === 1);
      receiver.release();
      expect(await answer).toBe('ok');
    }
    expect(pools.shardsOf(receiver.origin)).toBe(1);
  });

  it('adds pools when every connection is busy, up to the origin’s limit, and uses them all at once', async () => {
    const receiver = await holdingReceiver();
    const limit = CONNECTIONS_PER_SHARD + 44;
    const pools = new OriginPools(limit, {});
    cleanup.push(
      () => receiver.close(),
      () => pools.close(),
    );
    const answers = Array.from({ length: limit + 20 }, () => get(pools, receiver.origin));
    // Every connection of both pools carries a request at once; the 20 beyond wait.
    await waitFor(() => receiver.held() === limit);
    expect(pools.shardsOf(receiver.origin)).toBe(2);
    receiver.release();
    await waitFor(() => receiver.held() === 20);
    receiver.release();
    expect(await Promise.all(answers)).toHaveLength(limit + 20);
    expect(receiver.peak()).toBe(limit);
  });
});

async function waitFor(ok: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 5));
  }
}
