import type { Timer, TimerDraft } from '../../src/domain/timer.js';

/** What to create a timer from in tests that write one straight through the repository: every-second, active. */
export function testDraft(overrides: Partial<TimerDraft> = {}): TimerDraft {
  return {
    app: 'billing',
    name: 'n',
    cron: '* * * * * *',
    at: null,
    everyMs: null,
    offsetMs: 0,
    jitterMs: 0,
    timezone: 'UTC',
    callback: { url: 'https://hooks.example/run', method: 'POST', headers: {}, body: null, timeoutMs: 5000 },
    retry: { maxAttempts: 3, backoffMs: 1000 },
    misfirePolicy: 'fire_once',
    misfireThresholdMs: 60_000,
    startAt: null,
    endAt: null,
    maxRuns: null,
    overlapPolicy: 'allow',
    notify: null,
    labels: {},
    description: null,
    autoPause: null,
    skipCalendars: [],
    skipDates: {},
    status: 'active',
    ...overrides,
  };
}

/** A complete Timer for tests that need one without a database: every-second, active, version 1. */
export function testTimer(overrides: Partial<Timer> = {}): Timer {
  return {
    id: 42,
    ...testDraft(),
    version: 1,
    plannedFrom: null,
    runsPlanned: 0,
    finalRunAt: null,
    pausedNote: null,
    pausedAt: null,
    pausedUntil: null,
    failureStreak: 0,
    createdAt: new Date(0),
    updatedAt: new Date(0),
    ...overrides,
  };
}
