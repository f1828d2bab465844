/**
 * The benchmark's callback receiver, in its own process: plain node:http with
 * keep-alive. It records when each task id arrived; GET /_stats?from=&to= reports the
 * lateness (arrival − X-Xtimer-Scheduled-At) of runs scheduled in [from, to), of the
 * timers with ids in [minTimer, maxTimer] when those are given.
 */
import { createServer } from 'node:http';

const port = Number(process.argv[2] ?? 9800);

interface Arrival {
  scheduledAt: number;
  arrivedAt: number;
  count: number;
}
const arrivals = new Map<string, Arrival>();
let total = 0;

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

const server = createServer((req, res) => {
  if (req.url?.startsWith('/_stats')) {
    const q = new URL(req.url, 'http://x').searchParams;
    const from = Number(q.get('from'));
    const to = Number(q.get('to'));
    const minTimer = Number(q.get('minTimer') ?? 0);
    const maxTimer = Number(q.get('maxTimer') ?? Number.MAX_SAFE_INTEGER);
    const lateness: number[] = [];
    const keys: string[] = [];
    let duplicates = 0;
    for (const [key, a] of arrivals) {
      if (a.scheduledAt < from || a.scheduledAt >= to) continue;
      const timerId = Number(key.slice(0, key.indexOf('_')));
      if (timerId < minTimer || timerId > maxTimer) continue;
      keys.push(key);
      lateness.push(a.arrivedAt - a.scheduledAt);
      if (a.count > 1) duplicates++;
    }
    lateness.sort((a, b) => a - b);
    res.setHeader('content-type', 'application/json');
    res.end(
      JSON.stringify({
        delivered: keys.length,
        duplicates,
        p50: percentile(lateness, 50),
        p90: percentile(lateness, 90),
        p99: percentile(lateness, 99),
        max: lateness.at(-1) ?? Number.NaN,
        keys: q.get('keys') === '1' ? keys : undefined,
        total,
      }),
    );
    return;
  }
  if (req.url === '/_reset') {
    arrivals.clear();
    total = 0;
    res.end('ok');
    return;
  }
  const arrivedAt = Date.now();
  const key = req.headers['x-xtimer-task-id'];
  const scheduledAt = Number(req.headers['x-xtimer-scheduled-at']);
  req.resume();
  req.on('end', () => {
    if (typeof key === 'string') {
      total++;
      const seen = arrivals.get(key);
      if (seen) seen.count++;
      else arrivals.set(key, { scheduledAt, arrivedAt, count: 1 });
    }
    res.end('ok');
  });
});
server.keepAliveTimeout = 120_000;
server.headersTimeout = 130_000;
server.listen(port, '127.0.0.1', () => process.stdout.write(`sink listening on ${port}\n`));
