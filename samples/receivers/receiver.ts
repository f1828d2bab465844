import { createServer } from 'node:http';
import { verifyCallback, type XtimerRun } from 'xtimer/client';

const secret = process.env.XTIMER_SIGNING_SECRET!; // "whsec_…", from POST /api/v1/apps
const done = new Set<string>(); // use a table with a unique key on the task id in production

// The timer's callback.body as sent: none unless the timer sets one, and not always JSON.
async function doTheWork(body: string, scheduledAt: number): Promise<void> {
  console.log('run for', new Date(scheduledAt).toISOString(), body || '(no body)');
}

createServer((req, res) => {
  let body = '';
  req.setEncoding('utf8');
  req.on('data', (chunk) => (body += chunk));
  req.on('end', async () => {
    let run: XtimerRun;
    try {
      run = verifyCallback({ headers: req.headers, body }, secret);
    } catch (err) {
      // Why, for you (an unsigned call, a wrong secret): the sender is told no more.
      console.error('refused a call:', (err as Error).message);
      res.writeHead(401).end('bad signature');
      return;
    }
    if (!done.has(run.taskId)) {
      await doTheWork(body, run.scheduledAt); // your job
      done.add(run.taskId);
    }
    res.writeHead(200).end('ok'); // 2xx = done; 5xx and 429 are retried (attempt + 1)
  });
}).listen(Number(process.env.PORT || 3000), () => console.log('receiver listening'));
