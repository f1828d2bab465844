/**
 * The benchmark's callback receiver, in its own process: plain node:http with
 * keep-alive. It records when each task id arrived; GET /_stats?from=&to= reports the
 * lateness (arrival − X-Xtimer-Scheduled-At) of runs scheduled in [from, to), and
 * GET /_arrivals?from=&to= lists those runs one a line, for the bench to judge itself.
 *
 * A receiver's manners come from the path: /slow/<ms> answers after that many ms,
 * /hang never answers (the caller's timeout ends the call); any other path at once.
 * GET /_inflight reports the calls open now and the most open at once since the last
 * GET /_inflight?reset=1 (or /_reset).
 */
import { createServer } from 'node:http';
import { percentile } from './arrivals.js';

const port = Number(process.argv[2] ?? 9800);

interface Arrival {
  scheduledAt: number;
  /** When the first call for the run started (its request arrived). */
  arrivedAt: number;
  count: number;
  /** Bit n set: attempt n was called (X-Xtimer-Attempt). */
  attempts: number;
}
const arrivals = new Map<string, Arrival>();
let total = 0;
/** Calls being answered now, and the most there were at once. */
let open = 0;
let peakOpen = 0;

/** The runs scheduled in [from, to), of the timers with ids in [minTimer, maxTimer] when those are given. */
function inWindow(q: URLSearchParams): Array<[string, Arrival]> {
  const from = Number(q.get('from'));
  const to = Number(q.get('to'));
  const minTimer = Number(q.get('minTimer') ?? 0);
  const maxTimer = Number(q.get('maxTimer') ?? Number.MAX_SAFE_INTEGER);
  return [...arrivals].filter(([key, a]) => {
    if (a.scheduledAt < from || a.scheduledAt >= to) return false;
    const timerId = Number(key.slice(0, key.indexOf('_')));
    return timerId >= minTimer && timerId <= maxTimer;
  });
}

function stats(q: URLSearchParams): string {
  const runs = inWindow(q);
  const lateness = runs.map(([, a]) => a.arrivedAt - a.scheduledAt).sort((a, b) => a - b);
  return JSON.stringify({
    delivered: runs.length,
    duplicates: runs.filter(([, a]) => a.count > 1).length,
    p50: percentile(lateness, 50),
    p90: percentile(lateness, 90),
    p99: percentile(lateness, 99),
    max: lateness.at(-1) ?? Number.NaN,
    keys: q.get('keys') === '1' ? runs.map(([key]) => key) : undefined,
    total,
  });
}

/** `taskId scheduledAt arrivedAt calls attemptBits`, one run a line. */
function list(q: URLSearchParams): string {
  return inWindow(q)
    .map(([key, a]) => `${key} ${a.scheduledAt} ${a.arrivedAt} ${a.count} ${a.attempts}\n`)
    .join('');
}

const server = createServer((req, res) => {
  const url = req.url ?? '/';
  if (url.startsWith('/_stats') || url.startsWith('/_arrivals')) {
    const q = new URL(url, 'http://x').searchParams;
    res.setHeader('content-type', url.startsWith('/_stats') ? 'application/json' : 'text/plain');
    res.end(url.startsWith('/_stats') ? stats(q) : list(q));
    return;
  }
  if (url.startsWith('/_inflight')) {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ open, peak: peakOpen }));
    if (url.includes('reset=1')) peakOpen = open;
    return;
  }
  if (url === '/_reset') {
    arrivals.clear();
    total = 0;
    peakOpen = open;
    res.end('ok');
    return;
  }
  const arrivedAt = Date.now();
  open++;
  peakOpen = Math.max(peakOpen, open);
  res.on('close', () => open--);
  const key = req.headers['x-xtimer-task-id'];
  const scheduledAt = Number(req.headers['x-xtimer-scheduled-at']);
  const attemptBit = 2 ** Number(req.headers['x-xtimer-attempt'] ?? 1);
  req.resume();
  req.on('end', () => {
    if (typeof key === 'string') {
      total++;
      const seen = arrivals.get(key);
      if (seen) {
        seen.count++;
        seen.attempts |= attemptBit;
      } else arrivals.set(key, { scheduledAt, arrivedAt, count: 1, attempts: attemptBit });
    }
    if (url === '/hang') return;
    if (url.startsWith('/slow/')) setTimeout(() => res.end('ok'), Number(url.slice(6)));
    else res.end('ok');
  });
});
server.keepAliveTimeout = 120_000;
server.headersTimeout = 130_000;
// A backlog for thousands of callbacks that open their connections in the same
// millisecond: at node's default 511 the kernel drops the rest of the SYNs, each retried
// a second later (and the calls timed out reconnect again: a receiver tuned so badly
// never catches up). 4096 is the kernel's somaxconn here.
server.listen({ port, host: '127.0.0.1', backlog: 4096 }, () =>
  process.stdout.write(`sink listening on ${port}\n`),
);
