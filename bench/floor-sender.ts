/**
 * The harness floor: no scheduler at all. Each whole second this process sends N
 * callbacks (the headers xtimer sends, through an undici Agent) straight to the sink,
 * starting at the due millisecond. What the sink then measures is what the box, the
 * client library and the sink cost before any scheduler adds its own lateness.
 *
 * Arguments: sinkUrl count connections
 */
import { Agent, request } from 'undici';

const [sinkUrl = '', countArg = '100', connectionsArg = '8192'] = process.argv.slice(2);
const count = Number(countArg);
const agent = new Agent({ connections: Number(connectionsArg) });
const body = '{}';
let stopped = false;

function fire(dueMs: number): void {
  for (let i = 0; i < count; i++) {
    request(sinkUrl, {
      method: 'POST',
      dispatcher: agent,
      headers: {
        'content-type': 'application/json',
        'x-xtimer-task-id': `${i + 1}_${dueMs}`,
        'x-xtimer-scheduled-at': String(dueMs),
        'x-xtimer-attempt': '1',
      },
      body,
    })
      .then((res) => res.body.dump())
      .catch(() => undefined);
  }
}

function next(): void {
  if (stopped) return;
  const due = Math.floor(Date.now() / 1000) * 1000 + 1000;
  // Wake 2 ms early and spin to the due millisecond, as xtimer's release gate does.
  setTimeout(
    () => {
      while (Date.now() < due) {
        // busy wait
      }
      fire(due);
      next();
    },
    due - Date.now() - 2,
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
