import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { taskKey } from '../../../../../src/domain/plan/task-key.js';
import { createLogger } from '../../../../../src/observability/logger.js';
import { RunRecorder } from '../../../../../src/services/firing/settle/run-recorder.js';
import type { RunOutcome } from '../../../../../src/storage/db/tasks/task-repository.js';

function outcome(timerId: number, status: RunOutcome['status']): RunOutcome {
  return {
    timerId,
    runAt: 1_700_000_000_000,
    status,
    attempts: 1,
    httpStatus: status === 'succeeded' ? 200 : null,
    output: null,
    error: null,
    firedAt: null,
    durationMs: null,
    leaseUntil: status === 'running' ? 1_700_000_010_000 : null,
  };
}

describe('RunRecorder', () => {
  let writes: RunOutcome[][];
  let recorder: RunRecorder;
  const inFlight = (timerId: number) =>
    recorder.recordInFlight(taskKey(timerId, 1_700_000_000_000), () => outcome(timerId, 'running'));

  beforeEach(() => {
    vi.useFakeTimers();
    writes = [];
    recorder = new RunRecorder(
      async (o) => {
        writes.push(o);
      },
      createLogger('silent'),
      { flushEveryMs: 10, inFlightHoldMs: 1000 },
    );
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('writes one outcome per run when the result replaces its in-flight state in time, never building that state', async () => {
    let built = 0;
    recorder.recordInFlight(taskKey(1, 1_700_000_000_000), () => {
      built++;
      return outcome(1, 'running');
    });
    await vi.advanceTimersByTimeAsync(500);
    recorder.record(outcome(1, 'succeeded'));
    await vi.advanceTimersByTimeAsync(2000);
    expect(writes.flat().map((o) => o.status)).toEqual(['succeeded']);
    expect(built).toBe(0);
  });

  it('writes the in-flight state of a call still running after the hold', async () => {
    inFlight(1);
    await vi.advanceTimersByTimeAsync(999);
    expect(writes).toEqual([]);
    await vi.advanceTimersByTimeAsync(50);
    expect(writes.flat().map((o) => [o.timerId, o.status])).toEqual([[1, 'running']]);
    recorder.record(outcome(1, 'failed'));
    await vi.advanceTimersByTimeAsync(50);
    expect(writes.flat().map((o) => o.status)).toEqual(['running', 'failed']);
  });

  it('holds each in-flight state from its own start', async () => {
    inFlight(1);
    await vi.advanceTimersByTimeAsync(600);
    inFlight(2);
    await vi.advanceTimersByTimeAsync(450);
    expect(writes.flat().map((o) => o.timerId)).toEqual([1]);
    await vi.advanceTimersByTimeAsync(600);
    expect(writes.flat().map((o) => o.timerId)).toEqual([1, 2]);
  });

  it('writes what is still in flight when it stops', async () => {
    inFlight(3);
    expect(recorder.buffered).toBe(1);
    await recorder.stop();
    expect(writes.flat().map((o) => [o.timerId, o.status])).toEqual([[3, 'running']]);
    expect(recorder.buffered).toBe(0);
  });

  it('counts a finished run as unwritten while its write is under way, until MySQL has it', async () => {
    // Redis lost the claims mid-write: a copy fanned out again must find this run finished.
    let land: () => void = () => undefined;
    const held = new RunRecorder(
      () => new Promise<void>((resolve) => (land = resolve)),
      createLogger('silent'),
      { flushEveryMs: 10 },
    );
    held.record(outcome(4, 'succeeded'));
    await vi.advanceTimersByTimeAsync(20);
    expect(held.finishedUnwritten()).toEqual([
      { key: taskKey(4, 1_700_000_000_000), runAt: 1_700_000_000_000, attempt: 1, status: 'succeeded' },
    ]);
    land();
    await vi.advanceTimersByTimeAsync(0);
    expect(held.finishedUnwritten()).toEqual([]);
  });
});
