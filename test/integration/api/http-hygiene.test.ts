import { connect, type Socket } from 'node:net';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HttpServer, listen } from '../../../api/server.js';
import { createLogger } from '../../../src/observability/logger.js';
import { createTestApp, timerBody } from '../../helpers/api.js';
import { createTestCore, createTestStores, type TestStores } from '../../helpers/stores.js';

/**
 * HTTP hygiene on a real socket (@hono/node-server): an answer given before the
 * request body was read (a 413, a 415, any early error) says `Connection: close` and
 * closes, so a keep-alive client's next request goes out on a fresh connection instead of
 * into one the server drops. Requests read to their end keep the connection alive.
 */

let stores: TestStores;
let server: HttpServer;

beforeAll(async () => {
  stores = await createTestStores('hygiene');
  server = await listen(createTestApp(createTestCore(stores)), '127.0.0.1', 0, createLogger('silent'));
});
afterAll(async () => {
  await server?.close();
  await stores?.cleanup();
});

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** A keep-alive HTTP/1.1 connection that reads whole responses (Content-Length framed). */
class RawConnection {
  private buffer = Buffer.alloc(0);
  private waiting: (() => void) | null = null;
  closed = false;
  readonly socket: Socket;

  private constructor(port: number) {
    this.socket = connect(port, '127.0.0.1');
    this.socket.on('data', (chunk: Buffer) => {
      this.buffer = Buffer.concat([this.buffer, chunk]);
      this.waiting?.();
    });
    this.socket.on('close', () => {
      this.closed = true;
      this.waiting?.();
    });
    this.socket.on('error', () => undefined);
  }

  static async open(port: number): Promise<RawConnection> {
    const conn = new RawConnection(port);
    await new Promise<void>((resolve) => conn.socket.once('connect', () => resolve()));
    return conn;
  }

  send(head: string, body: string | Buffer = ''): void {
    this.socket.write(head);
    if (body.length > 0) this.socket.write(body);
  }

  /** The next response, or null if the connection closed first. */
  async response(timeoutMs = 5000): Promise<RawResponse | null> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const parsed = this.parse();
      if (parsed) return parsed;
      if (this.closed) return null;
      if (Date.now() > deadline) throw new Error('no response in time');
      await new Promise<void>((resolve) => {
        this.waiting = resolve;
        setTimeout(resolve, 50);
      });
      this.waiting = null;
    }
  }

  /** Resolves true once the server closes the connection. */
  async closedByServer(timeoutMs = 5000): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (!this.closed && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    return this.closed;
  }

  private parse(): RawResponse | null {
    const end = this.buffer.indexOf('\r\n\r\n');
    if (end < 0) return null;
    const [statusLine, ...lines] = this.buffer.subarray(0, end).toString('latin1').split('\r\n');
    const headers = Object.fromEntries(
      lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
    );
    const length = Number(headers['content-length'] ?? 0);
    if (this.buffer.length < end + 4 + length) return null;
    const body = this.buffer.subarray(end + 4, end + 4 + length).toString('utf8');
    this.buffer = this.buffer.subarray(end + 4 + length);
    return { status: Number(statusLine!.split(' ')[1]), headers, body };
  }

  close(): void {
    this.socket.destroy();
  }
}

const head = (method: string, path: string, headers: Record<string, string | number>) =>
  `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('')}\r\n`;

const GET_HEALTH = head('GET', '/healthz', {});

describe('after an early answer', () => {
  it('closes the connection after a 413, saying so, and a keep-alive client carries on', async () => {
    const conn = await RawConnection.open(server.port);
    try {
      const body = Buffer.alloc(2 * 1024 * 1024, 'x');
      conn.send(
        head('POST', '/api/v1/timers', { 'content-type': 'application/json', 'content-length': body.length }),
        body,
      );
      const res = await conn.response();
      expect(res?.status).toBe(413);
      expect(JSON.parse(res!.body).error.code).toBe('PAYLOAD_TOO_LARGE');
      expect(res?.headers.connection).toBe('close');
      expect(await conn.closedByServer()).toBe(true);
    } finally {
      conn.close();
    }

    // The same as a pooled keep-alive client (undici, one connection) sees it.
    const agent = new Agent({ connections: 1, pipelining: 1 });
    try {
      const origin = `http://127.0.0.1:${server.port}`;
      const big = await request(`${origin}/api/v1/timers`, {
        dispatcher: agent,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: 'x'.repeat(2 * 1024 * 1024),
      });
      expect(big.statusCode).toBe(413);
      await big.body.text();
      const next = await request(`${origin}/healthz`, { dispatcher: agent });
      expect(next.statusCode).toBe(200);
      await next.body.text();
    } finally {
      await agent.close();
    }
  });

  it('closes the connection after a chunked body refused unread (415), saying so', async () => {
    const conn = await RawConnection.open(server.port);
    try {
      const chunk = 'y'.repeat(100_000);
      conn.send(
        head('POST', '/api/v1/timers', { 'content-type': 'text/plain', 'transfer-encoding': 'chunked' }),
        `${chunk.length.toString(16)}\r\n${chunk}\r\n0\r\n\r\n`,
      );
      const res = await conn.response();
      expect(res?.status).toBe(415);
      expect(res?.headers.connection).toBe('close');
      expect(await conn.closedByServer()).toBe(true);
    } finally {
      conn.close();
    }
  });
});

describe('request headers over the limit', () => {
  it('answers 431, not a 5xx, and closes the connection', async () => {
    const conn = await RawConnection.open(server.port);
    try {
      conn.send(head('GET', '/healthz', { 'x-padding': 'p'.repeat(64 * 1024) }), Buffer.alloc(0));
      const res = await conn.response();
      expect(res?.status).toBe(431);
      expect(await conn.closedByServer()).toBe(true);
    } finally {
      conn.close();
    }
  });
});

describe('after a request read to its end', () => {
  it('keeps the connection alive for the next request', async () => {
    const conn = await RawConnection.open(server.port);
    try {
      const body = JSON.stringify(timerBody({ app: 'hygiene' }));
      conn.send(
        head('POST', '/api/v1/timers', {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
        }),
        body,
      );
      const created = await conn.response();
      expect(created?.status).toBe(201);
      expect(created?.headers.connection).not.toBe('close');
      const bad = JSON.stringify(timerBody({ app: 'hygiene', cron: 'nope' }));
      conn.send(
        head('POST', '/api/v1/timers', {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(bad),
        }),
        bad,
      );
      expect((await conn.response())?.status).toBe(400);
      conn.send(GET_HEALTH);
      const next = await conn.response();
      expect(next?.status).toBe(200);
      expect(conn.closed).toBe(false);
    } finally {
      conn.close();
    }
  });
});

describe('a body sent in chunks (no Content-Length)', () => {
  const chunked = (body: string) => `${Buffer.byteLength(body).toString(16)}\r\n${body}\r\n0\r\n\r\n`;
  const postChunked = (conn: RawConnection, body: string) =>
    conn.send(
      head('POST', '/api/v1/timers', { 'content-type': 'application/json', 'transfer-encoding': 'chunked' }),
      chunked(body),
    );

  it('is read and stored like any other', async () => {
    const conn = await RawConnection.open(server.port);
    try {
      postChunked(conn, JSON.stringify(timerBody({ app: 'hygiene', name: 'chunked' })));
      expect((await conn.response())?.status).toBe(201);
    } finally {
      conn.close();
    }
  });

  it('is refused with 413 PAYLOAD_TOO_LARGE once it is counted past 1 MiB', async () => {
    const conn = await RawConnection.open(server.port);
    try {
      postChunked(conn, JSON.stringify(timerBody({ app: 'hygiene', name: 'n'.repeat(1024 * 1024 + 1) })));
      const res = await conn.response();
      expect(res?.status).toBe(413);
      expect(JSON.parse(res!.body).error.code).toBe('PAYLOAD_TOO_LARGE');
    } finally {
      conn.close();
    }
  });
});
