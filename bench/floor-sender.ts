/**
 * The harness floor: no scheduler at all. Each whole second this process sends N
 * callbacks straight to the sink, starting at the due millisecond: the very requests
 * xtimer sends (built and signed by its own `prepareCall`, ahead of the instant as its
 * executor does), over as many connections as its callback pool opens. What the sink then
 * measures is what the box, the client library and the sink cost before any scheduler adds
 * its own lateness.
 *
 * Arguments: sinkUrl count connections periodMs (default 1000: every second; 60000 sends
 * the count once a minute, at second 0, as every-minute timers do)
 */
import { Agent, request } from 'undici';
import { prepareCall } from '../src/callback/callback-request.js';
import { newSigningSecret, signingKeyOf, WebhookSigner } from '../src/callback/webhook-signer.js';
import { taskKey } from '../src/domain/plan/task-key.js';
import type { Timer } from '../src/domain/timer.js';

// xtimer's CALLBACK_CONNECTIONS default.
const [sinkUrl = '', countArg = '100', connectionsArg = '8192', periodArg = '1000'] = process.argv.slice(2);
const count = Number(countArg);
const periodMs = Number(periodArg);
// xtimer's callback pool keeps idle connections 30 s (http-caller.ts): so does the floor.
const agent = new Agent({ connections: Number(connectionsArg), keepAliveTimeout: 30_000 });
const signer = new WebhookSigner([{ key: signingKeyOf(newSigningSecret()), validUntil: null }]);
/**
 * How long before its instant a second's calls are built (xtimer builds them when it claims,
 * earlier still); a minute's tens of thousands take seconds to sign, so they start 5 s ahead.
 */
const PREPARE_AHEAD_MS = periodMs >= 60_000 ? 5000 : 300;
let stopped = false;

/** A timer as the bench creates them: every second, a POST to the sink without a body. */
function benchTimer(id: number): Timer {
  return {
    id,
    app: 'bench0',
    name: `t${id}`,
    cron: '* * * * * *',
    at: null,
    everyMs: null,
    offsetMs: 0,
    jitterMs: 0,
    timezone: 'UTC',
    callback: { url: sinkUrl, method: 'POST', headers: {}, body: null, timeoutMs: 30_000 },
    retry: { maxAttempts: 1, backoffMs: 0 },
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
  };
}
const timers = Array.from({ length: count }, (_, i) => benchTimer(i + 1));

function prepare(dueMs: number) {
  return timers.map((t) => prepareCall(t, taskKey(t.id, dueMs), dueMs, 1, { signer }));
}

function fire(calls: ReturnType<typeof prepare>): void {
  for (const call of calls) {
    request(`${call.origin}${call.path}`, {
      method: call.method,
      dispatcher: agent,
      headers: call.headers,
      body: call.body,
    })
      .then((res) => res.body.dump())
      .catch(() => undefined);
  }
}

function next(): void {
  if (stopped) return;
  const due = Math.floor(Date.now() / periodMs) * periodMs + periodMs;
  setTimeout(
    () => {
      const calls = prepare(due);
      // Wake 2 ms early and spin to the due millisecond, as xtimer's release gate does.
      setTimeout(
        () => {
          while (Date.now() < due) {
            // busy wait
          }
          fire(calls);
          next();
        },
        Math.max(0, due - Date.now() - 2),
      );
    },
    Math.max(0, due - Date.now() - PREPARE_AHEAD_MS),
  );
}

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    stopped = true;
    agent.close().finally(() => process.exit(0));
  });
}
next();
process.stdout.write('floor sender ready\n');
