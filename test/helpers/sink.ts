import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One callback as the sink received it. */
export interface Delivery {
  taskId: string;
  timerId: number;
  scheduledAt: number;
  /** X-Xtimer-Nominal-At: the instant before the run's jitter shift. */
  nominalAt: number;
  attempt: number;
  arrivedAt: number;
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** Decides the sink's answer to a delivery (default 200 "ok"). */
export type Responder = (d: Delivery) => {
  status: number;
  body?: string;
  headers?: Record<string, string>;
  /** Answer only after this long (a receiver slow in its headers). */
  delayMs?: number;
  /** Send the head at once, then the body one byte every this many ms, without end (a trickling receiver). */
  trickleMs?: number;
  /** Never answer at all (a hanging receiver). */
  hang?: boolean;
};

/**
 * A real HTTP receiver for callbacks: records every delivery with its arrival time, so
 * tests can count deliveries per task id (duplicates, gaps) and measure lateness.
 */
export class Sink {
  readonly deliveries: Delivery[] = [];
  respond: Responder = () => ({ status: 200, body: 'ok' });
  /** TCP connections accepted, requests or not (a refused target must not even connect). */
  connections = 0;
  /** Requests being answered right now, and the most there ever were at once. */
  open = 0;
  maxOpen = 0;
  private server: Server | null = null;
  port = 0;

  async start(port = 0): Promise<this> {
    this.server = createServer((req, res) => {
      const arrivedAt = Date.now();
      this.open++;
      this.maxOpen = Math.max(this.maxOpen, this.open);
      res.on('close', () => this.open--);
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const h = req.headers;
        const d: Delivery = {
          taskId: String(h['x-xtimer-task-id'] ?? ''),
          timerId: Number(h['x-xtimer-timer-id']),
          scheduledAt: Number(h['x-xtimer-scheduled-at']),
          nominalAt: Number(h['x-xtimer-nominal-at']),
          attempt: Number(h['x-xtimer-attempt']),
          arrivedAt,
          method: req.method ?? '',
          path: req.url ?? '',
          headers: h,
          body: Buffer.concat(chunks).toString('utf8'),
        };
        this.deliveries.push(d);
        const answer = this.respond(d);
        if (answer.hang) return;
        if (answer.trickleMs) {
          res.writeHead(answer.status, answer.headers ?? {});
          const drip = setInterval(() => res.write('.'), answer.trickleMs);
          res.on('close', () => clearInterval(drip));
          return;
        }
        const send = () => {
          if (res.destroyed) return;
          res.writeHead(answer.status, answer.headers ?? {});
          res.end(answer.body ?? '');
        };
        if (answer.delayMs) setTimeout(send, answer.delayMs);
        else send();
      });
    });
    this.server.on('connection', () => {
      this.connections++;
    });
    this.server.keepAliveTimeout = 60_000;
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  url(path = '/hook'): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  forTimer(timerId: number): Delivery[] {
    return this.deliveries.filter((d) => d.timerId === timerId);
  }

  /** Deliveries per task id. */
  countByTask(): Map<string, number> {
    const counts = new Map<string, number>();
    for (const d of this.deliveries) counts.set(d.taskId, (counts.get(d.taskId) ?? 0) + 1);
    return counts;
  }

  async stop(): Promise<void> {
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
    this.server = null;
  }
}
