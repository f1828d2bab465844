import type { Timer } from '../../src/domain/timer.js';

/** A complete Timer for tests that need one without a database: every-second, active, version 1. */
export function testTimer(overrides: Partial<Timer> = {}): Timer {
  return {
    id: 42,
    app: 'billing',
    name: 'n',
    cron: '* * * * * *',
    timezone: 'UTC',
    callback: { url: 'https://hooks.example/run', method: 'POST', headers: {}, body: null, timeoutMs: 5000 },
    retry: { maxAttempts: 3, backoffMs: 1000 },
    misfirePolicy: 'fire_once',
    misfireThresholdMs: 60_000,
    status: 'active',
    version: 1,
    plannedFrom: null,
    createdAt: new Date(0),
    updatedAt: new Date(0),
    ...overrides,
  };
}
