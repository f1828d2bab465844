/**
 * Preloaded (`--import`) into a bench child by BENCH_ALLOC_PROF_DIR, in each of its threads
 * (workers inherit the flag; plain JavaScript, since a worker imports it before tsx can load
 * TypeScript): samples every allocation for a window of the line and writes it as a
 * `.heapprofile`. Unlike `--heap-prof`, which keeps only what is still alive when the
 * process stops, it counts the objects the collector has freed too: where the young
 * generation's churn comes from.
 *
 * BENCH_ALLOC_PROF_AFTER (seconds from the thread's start, default 25) and
 * BENCH_ALLOC_PROF_FOR (default 15) place the window; at 5,000 per instant the measured
 * seconds of `npm run bench -- --timers=5000` hold it.
 *
 * BENCH_ALLOC_PROF_LIVE=1 keeps instead only what the window allocated and a full
 * collection at its end leaves alive (`Live.*.heapprofile`): with a window of a few
 * seconds, what the runs in flight hold, which every young collection copies.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';
import { threadId } from 'node:worker_threads';

const dir = process.env.BENCH_ALLOC_PROF_DIR;
const afterMs = Number(process.env.BENCH_ALLOC_PROF_AFTER ?? 25) * 1000;
const forMs = Number(process.env.BENCH_ALLOC_PROF_FOR ?? 15) * 1000;
const live = process.env.BENCH_ALLOC_PROF_LIVE === '1';

if (dir) {
  const session = new Session();
  session.connect();
  const sample = async () => {
    await session.post('HeapProfiler.enable');
    await session.post('HeapProfiler.startSampling', {
      samplingInterval: 16_384,
      includeObjectsCollectedByMajorGC: !live,
      includeObjectsCollectedByMinorGC: !live,
    });
    await new Promise((resolve) => setTimeout(resolve, forMs).unref());
    if (live) await session.post('HeapProfiler.collectGarbage');
    const { profile } = await session.post('HeapProfiler.stopSampling');
    const name = `${live ? 'Live' : 'Alloc'}.${process.pid}.${threadId}.heapprofile`;
    writeFileSync(join(dir, name), JSON.stringify(profile));
  };
  // Unreferenced: a thread that is done need not wait for its window.
  setTimeout(() => void sample().catch(() => undefined), afterMs).unref();
}
