import { Worker } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeys } from '../../../../../src/storage/redis/keys.js';
import { createQueues, type Queues, TRIGGER_QUEUE } from '../../../../../src/storage/redis/queues.js';
import { COMPACT_READER, SliceForm } from '../../../../../src/storage/redis/runs/slice-form.js';
import { createTestStores, eventually, type TestStores } from '../../../../helpers/stores.js';

/**
 * Which form runs go into slices in, judged from the trigger workers really connected to
 * Redis: a worker of an earlier release (no name) reads only the long form.
 */
let stores: TestStores;
let queues: Queues;
const workers: Worker[] = [];
let clock = 0;

beforeAll(async () => {
  stores = await createTestStores('sliceform');
  queues = createQueues(stores.redis, createKeys(stores.config.prefix));
});
afterAll(async () => {
  for (const w of workers) await w.close();
  await queues?.close();
  await stores?.cleanup();
});

async function trigger(name?: string): Promise<Worker> {
  const w = new Worker(TRIGGER_QUEUE, async () => undefined, {
    connection: stores.redis.duplicate(),
    prefix: createKeys(stores.config.prefix).bullPrefix(TRIGGER_QUEUE),
    ...(name ? { name } : {}),
  });
  workers.push(w);
  const running = workers.filter((x) => !x.closing).length;
  await eventually(
    async () => (await queues.trigger.getWorkers()).length === running,
    'the worker listed among the connected',
  );
  return w;
}

describe('the form of the runs written into slices', () => {
  const form = new SliceForm(
    'auto',
    () => queues.trigger.getWorkers(),
    undefined,
    () => clock,
  );
  const later = () => {
    clock += 20_000;
  };

  it('is compact with no trigger connected, and with triggers of this release', async () => {
    expect(await form.isLong()).toBe(false);
    await trigger(COMPACT_READER);
    later();
    expect(await form.isLong()).toBe(false);
  });

  it('is long while a trigger of an earlier release is connected, and compact again once it is gone', async () => {
    const old = await trigger();
    expect((await queues.trigger.getWorkers()).length).toBe(2);
    // Trusted for a while: a look is a CLIENT LIST.
    expect(await form.isLong()).toBe(false);
    later();
    expect(await form.isLong()).toBe(true);
    await old.close();
    later();
    expect(await form.isLong()).toBe(false);
  });

  it('is long when the workers cannot be listed, and as set when set', async () => {
    const unlisted = new SliceForm('auto', async () => {
      throw new Error('ERR unknown command CLIENT');
    });
    expect(await unlisted.isLong()).toBe(true);
    expect(await new SliceForm('compact', async () => [{}]).isLong()).toBe(false);
    expect(await new SliceForm('long', async () => []).isLong()).toBe(true);
  });
});
