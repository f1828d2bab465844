import { describe, expect, it } from 'vitest';
import { MINUTE } from '../../src/domain/slice.js';
import { createLogger } from '../../src/observability/logger.js';
import { Metrics } from '../../src/observability/metrics.js';
import type { CompensationReport } from '../../src/services/compensator.js';
import type { MigrationResult } from '../../src/services/migration.js';
import { MigrationRunner, migrationLockTimes } from '../../src/services/migration-runner.js';
import { createKeys } from '../../src/storage/redis/keys.js';

const HOUR = 60 * MINUTE;
const T0 = Date.UTC(2026, 10, 23, 18, 0, 30);

/** An in-memory lock that lapses on the test's clock, as the Redis one does. */
function memoryLock(now: () => number) {
  const held = new Map<string, { token: string; until: number }>();
  let n = 0;
  return {
    held,
    acquire: async (key: string, ttlMs: number) => {
      const h = held.get(key);
      if (h && h.until > now()) return null;
      const token = `tok${++n}`;
      held.set(key, { token, until: now() + ttlMs });
      return token;
    },
    extend: async (key: string, token: string, ttlMs: number) => {
      const h = held.get(key);
      if (h?.token !== token) return false;
      h.until = now() + ttlMs;
      return true;
    },
    release: async (key: string, token: string) => {
      if (held.get(key)?.token !== token) return false;
      held.delete(key);
      return true;
    },
  };
}

const noRuns: MigrationResult = { timers: 0, runs: 0, ms: 1 };
const noneCompensated: CompensationReport = {
  refired: 0,
  recovered: 0,
  missed: 0,
  skipped: 0,
  requeued: 0,
  completed: 0,
};

function runner(options: { intact?: boolean; failMigration?: boolean } = {}) {
  let clock = T0;
  const now = () => clock;
  const lock = memoryLock(now);
  const keys = createKeys('test:');
  const calls: string[] = [];
  let intact = options.intact ?? true;
  const r = new MigrationRunner({
    migration: {
      run: async (horizon, _now, _progress, selectBefore) => {
        calls.push(selectBefore === undefined || selectBefore === horizon ? 'window' : 'top-up');
        if (options.failMigration) throw new Error('mysql gone');
        return noRuns;
      },
      rebuildSlices: async () => {
        calls.push('rebuild');
        return 3;
      },
    },
    compensator: {
      run: async () => {
        calls.push('compensate');
        return noneCompensated;
      },
    },
    history: {
      run: async () => {
        calls.push('history');
        return { added: 0, dropped: 0, failuresKept: 0, failuresPurged: 0 };
      },
    },
    lock,
    redis: {
      exists: (async () => (intact ? 1 : 0)) as never,
      set: (async () => {
        intact = true;
        return 'OK';
      }) as never,
    },
    keys,
    metrics: new Metrics(),
    stepMinutes: 60,
    logger: createLogger('silent'),
    now,
  });
  return { r, calls, lock, keys, advance: (ms: number) => (clock += ms), isIntact: () => intact };
}

describe('migration lock times', () => {
  it('are 20 min working and 120 min done for hour windows (SPEC §4)', () => {
    expect(migrationLockTimes(60)).toEqual({
      workingMs: 20 * MINUTE,
      doneMs: 120 * MINUTE,
      checkEveryMs: MINUTE,
    });
  });

  it('scale down with shorter windows, so a dead migrator is replaced before the next window', () => {
    const t = migrationLockTimes(6);
    expect(t.workingMs).toBe(2 * MINUTE);
    expect(t.doneMs).toBe(12 * MINUTE);
  });
});

describe('materialising the next window', () => {
  it('runs once per window, whichever migrator asks first', async () => {
    const { r, calls } = runner();
    await r.migrate();
    await r.migrate();
    expect(calls).toEqual(['window']);
  });

  it('keeps the window done for the rest of it once it has succeeded', async () => {
    const { r, lock, keys, advance } = runner();
    await r.migrate();
    const held = lock.held.get(keys.migratorLock('2026-11-23T18'));
    expect(held?.until).toBe(T0 + 120 * MINUTE);
    advance(30 * MINUTE);
    await r.migrate();
    expect(lock.held.size).toBe(1);
  });

  it('leaves a failed window to be retried once its working lock lapses', async () => {
    const { r, calls, advance } = runner({ failMigration: true });
    await r.migrate();
    advance(10 * MINUTE);
    await r.migrate();
    expect(calls).toEqual(['window']);
    advance(11 * MINUTE);
    await r.migrate();
    expect(calls).toEqual(['window', 'window']);
  });

  it('materialises the next hour once the clock has moved into it', async () => {
    const { r, calls, advance } = runner();
    await r.migrate();
    advance(HOUR);
    await r.migrate();
    expect(calls).toEqual(['window', 'window']);
  });
});

describe('the top-up', () => {
  it('runs once per minute across migrators, and again the next minute', async () => {
    const { r, calls, advance } = runner();
    await r.topUp();
    await r.topUp();
    advance(MINUTE);
    await r.topUp();
    expect(calls).toEqual(['top-up', 'top-up']);
  });
});

describe('rebuilding lost slices', () => {
  it('does nothing while the slices-intact marker is there', async () => {
    const { r, calls } = runner({ intact: true });
    await r.rebuildIfLost();
    expect(calls).toEqual([]);
  });

  it('rebuilds from MySQL and sets the marker again when Redis lost it', async () => {
    const { r, calls, isIntact } = runner({ intact: false });
    await r.rebuildIfLost();
    expect(calls).toEqual(['rebuild']);
    expect(isIntact()).toBe(true);
  });
});

describe('the compensator and the history', () => {
  it('run the compensator once per period across migrators', async () => {
    const { r, calls, advance } = runner();
    expect(await r.compensate()).toEqual(noneCompensated);
    expect(await r.compensate()).toBeNull();
    advance(30_000);
    await r.compensate();
    expect(calls).toEqual(['compensate', 'compensate']);
  });

  it('keeps the run history once per period across migrators', async () => {
    const { r, calls } = runner();
    await r.retainHistory();
    await r.retainHistory();
    expect(calls).toEqual(['history']);
  });
});
