import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { PreparedCall } from '../../../src/callback/callback-request.js';
import { HttpCaller } from '../../../src/callback/http-caller.js';

/** The HTTP caller against real local receivers that answer slowly, or without end. */
let server: Server | null = null;
const caller = new HttpCaller(16);
afterAll(() => caller.close());
const timers: NodeJS.Timeout[] = [];

async function receiver(handle: (res: ServerResponse, closed: Promise<void>) => void): Promise<string> {
  server = createServer((req, res) => {
    const closed = new Promise<void>((resolve) => res.on('close', () => resolve()));
    req.resume();
    handle(res, closed);
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function call(origin: string, timeoutMs: number): PreparedCall {
  return { origin, path: '/hook', method: 'POST', headers: {}, body: 'x', timeoutMs };
}

afterEach(async () => {
  for (const t of timers.splice(0)) clearInterval(t);
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r) ?? r(undefined));
  server = null;
});

describe('one deadline per call', () => {
  it('cuts off a receiver that trickles its body a byte at a time', async () => {
    let dropped!: Promise<void>;
    const origin = await receiver((res, closed) => {
      dropped = closed;
      res.writeHead(200);
      timers.push(setInterval(() => res.write('.'), 100));
    });
    const result = await caller.send(call(origin, 800));
    expect(result).toMatchObject({ kind: 'error', timedOut: true, error: 'timeout after 800 ms' });
    await dropped;
  });

  it('cuts off a receiver that never sends its head', async () => {
    const origin = await receiver(() => undefined);
    expect(await caller.send(call(origin, 500))).toMatchObject({
      kind: 'error',
      error: 'timeout after 500 ms',
    });
  });

  it('reads only as much of the body as a run stores, then drops the connection', async () => {
    let dropped!: Promise<void>;
    const origin = await receiver((res, closed) => {
      dropped = closed;
      res.writeHead(200);
      // An endless body: only the first 1,024 characters are ever read.
      timers.push(setInterval(() => res.write('y'.repeat(4096)), 5));
    });
    const result = await caller.send(call(origin, 60_000));
    expect(result).toMatchObject({ kind: 'response', status: 200 });
    expect(result.kind === 'response' && result.output).toBe('y'.repeat(1024));
    await dropped;
  });

  it('reads a short answer whole', async () => {
    const origin = await receiver((res) => res.end('done'));
    expect(await caller.send(call(origin, 1000))).toMatchObject({
      kind: 'response',
      status: 200,
      output: 'done',
    });
  });

  it('reads a multi-byte answer split across chunks as text', async () => {
    const origin = await receiver((res) => {
      res.write(Buffer.from([0xc3]));
      setTimeout(() => res.end(Buffer.from([0xa9, 0x21])), 20);
    });
    expect(await caller.send(call(origin, 1000))).toMatchObject({ kind: 'response', output: 'é!' });
  });

  it('starts the deadline once a connection is free: a call queued behind busy ones is not timed out', async () => {
    const oneConnection = new HttpCaller(1);
    let answered = 0;
    const origin = await receiver((res) => {
      // Each answer takes 300 ms: the third call waits 600 ms for the one connection, longer
      // than its 500 ms deadline, and is still answered within it once sent.
      setTimeout(() => {
        answered++;
        res.end(`answer ${answered}`);
      }, 300);
    });
    try {
      const results = await Promise.all([1, 2, 3].map(() => oneConnection.send(call(origin, 500))));
      expect(results.map((r) => r.kind === 'response' && r.output)).toEqual([
        'answer 1',
        'answer 2',
        'answer 3',
      ]);
    } finally {
      await oneConnection.close();
    }
  });
});

describe('the clock a call is stamped with', () => {
  it('is the one it is given, so lateness is measured on the clock that made the run due', async () => {
    const origin = await receiver((res) => res.end('ok'));
    const ahead = new HttpCaller(1, { now: () => Date.now() + 60_000 });
    try {
      const before = Date.now();
      const result = await ahead.send(call(origin, 2_000));
      expect(result.kind).toBe('response');
      expect(result.sentAt).toBeGreaterThanOrEqual(before + 60_000);
    } finally {
      await ahead.close();
    }
  });
});

describe('what an answer keeps for the run inspector', () => {
  it('keeps the response headers with credentials masked and the connection’s own left out', async () => {
    const origin = await receiver((res) => {
      res.writeHead(500, {
        'Content-Type': 'text/plain',
        'X-Request-Id': 'r-7',
        'Set-Cookie': ['session=abc123', 'theme=dark'],
        'X-Api-Token': 'tok_secret',
        Connection: 'keep-alive',
      });
      res.end('boom');
    });
    const result = await caller.send(call(origin, 1000));
    expect(result).toMatchObject({ kind: 'response', status: 500, output: 'boom', bodyBytes: 4 });
    const headers = result.kind === 'response' ? result.headers : undefined;
    expect(headers).toMatchObject({
      'content-type': 'text/plain',
      'x-request-id': 'r-7',
      'set-cookie': '***, ***',
      'x-api-token': '***',
    });
    expect(headers).not.toHaveProperty('connection');
    expect(headers).not.toHaveProperty('keep-alive');
    expect(JSON.stringify(headers)).not.toContain('abc123');
  });

  it('bounds the headers kept to 512 bytes, each value cut at 128 characters', async () => {
    const origin = await receiver((res) => {
      const many: Record<string, string> = { 'X-Long': 'v'.repeat(1000) };
      for (let i = 0; i < 40; i++) many[`X-Extra-${i}`] = 'x'.repeat(20);
      res.writeHead(200, many);
      res.end('ok');
    });
    const result = await caller.send(call(origin, 1000));
    const headers = result.kind === 'response' ? (result.headers ?? {}) : {};
    expect(headers['x-long']).toBe('v'.repeat(128));
    const size = Object.entries(headers).reduce((n, [k, v]) => n + k.length + v.length, 0);
    expect(size).toBeLessThanOrEqual(512);
    expect(Object.keys(headers).length).toBeLessThan(42);
  });

  it('says the whole body size of an answer cut off: its Content-Length', async () => {
    const body = 'z'.repeat(5000);
    const origin = await receiver((res) => {
      res.writeHead(200, { 'Content-Length': String(body.length) });
      res.end(body);
    });
    const result = await caller.send(call(origin, 1000));
    expect(result).toMatchObject({ kind: 'response', bodyBytes: 5000 });
    expect(result.kind === 'response' && result.output.length).toBe(1024);
  });

  it('says no whole size for an endless body without a Content-Length', async () => {
    const origin = await receiver((res) => {
      res.writeHead(200);
      timers.push(setInterval(() => res.write('y'.repeat(4096)), 5));
    });
    expect(await caller.send(call(origin, 60_000))).toMatchObject({ kind: 'response', bodyBytes: null });
  });
});
