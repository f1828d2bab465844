/**
 * The chaos run's receiver, in a process of its own so the runner's work never delays an
 * answer: `node --import tsx bench/chaos/sink-process.ts <log file>`. It logs every call
 * (task id, attempt, path, arrival, end, the status it answered, whether that answer was
 * written in full, and which process called) one JSON line each as the exchange ends.
 *
 * Its manners change in phases, set by the runner on a second port: `ok` answers 200 at
 * once, `slow` after `delayMs`, `fail` answers 500, `hang` never answers (the caller's
 * timeout ends the call). A call keeps the phase it arrived in.
 *
 * Control: POST /phase?mode=&delayMs=, POST /pids?list=1,2 (the xtimer processes), GET
 * /calls (every call so far, open ones too), GET /open (calls not yet ended).
 */
import { createWriteStream } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { CallerPids } from './caller-pid.js';
import type { SinkCall } from './checker.js';
import type { SinkMode } from './journal.js';

const logFile = process.argv[2];
if (!logFile) throw new Error('usage: sink-process.ts <log file>');
const log = createWriteStream(logFile, { flags: 'a' });

let phase: { mode: SinkMode; delayMs: number } = { mode: 'ok', delayMs: 0 };
const calls: SinkCall[] = [];
const callers = new CallerPids(() => hooksPort);
/** Each connection's calling process, looked up once per connection (callers keep theirs). */
const callerOf = new WeakMap<Socket, Promise<number | null>>();
let hooksPort = 0;

const hooks = createServer((req, res) => {
  const h = req.headers;
  const call: SinkCall = {
    taskId: String(h['x-xtimer-task-id'] ?? ''),
    timerId: Number(h['x-xtimer-timer-id']),
    attempt: Number(h['x-xtimer-attempt']),
    path: (req.url ?? '').split('?')[0]!,
    arrivedAt: Date.now(),
    endedAt: null,
    status: null,
    written: false,
    pid: null,
  };
  const caller = (callerOf.get(req.socket) ?? Promise.resolve(null)).then((pid) => {
    call.pid = pid;
  });
  calls.push(call);
  const { mode, delayMs } = phase;
  res.on('finish', () => {
    call.written = true;
  });
  res.on('close', () => {
    call.endedAt = Date.now();
    void caller.then(() => log.write(`${JSON.stringify(call)}\n`));
  });
  req.resume();
  req.on('end', () => {
    if (mode === 'hang') return;
    const answer = () => send(res, call, mode === 'fail' ? 500 : 200);
    if (mode === 'slow') setTimeout(answer, delayMs);
    else answer();
  });
});

function send(res: ServerResponse, call: SinkCall, status: number): void {
  if (res.destroyed) return;
  call.status = status;
  res.writeHead(status, { 'content-type': 'text/plain' });
  res.end(status === 200 ? 'ok' : 'chaos says no');
}

hooks.on('connection', (socket: Socket) => {
  callerOf.set(socket, socket.remotePort ? callers.lookUp(socket.remotePort) : Promise.resolve(null));
});
hooks.keepAliveTimeout = 60_000;

const control = createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://sink');
  const reply = (body: unknown) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  if (url.pathname === '/phase') {
    phase = {
      mode: url.searchParams.get('mode') as SinkMode,
      delayMs: Number(url.searchParams.get('delayMs') ?? 0),
    };
    reply(phase);
  } else if (url.pathname === '/pids') {
    callers.setCandidates((url.searchParams.get('list') ?? '').split(',').filter(Boolean).map(Number));
    reply({ ok: true });
  } else if (url.pathname === '/calls') reply(calls);
  else if (url.pathname === '/open') reply({ open: calls.filter((c) => c.endedAt === null).length });
  else {
    res.writeHead(404);
    res.end();
  }
});

hooks.listen(0, '127.0.0.1', () => {
  hooksPort = (hooks.address() as AddressInfo).port;
  control.listen(0, '127.0.0.1', () => {
    const controlPort = (control.address() as AddressInfo).port;
    process.stdout.write(`chaos sink listening ${hooksPort} ${controlPort}\n`);
  });
});
