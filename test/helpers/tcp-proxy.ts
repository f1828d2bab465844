import type { AddressInfo } from 'node:net';
import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy a test can cut: while "down" it resets every open connection and refuses
 * new ones, as if the server behind it had gone away; while "frozen" it carries nothing
 * and resets nothing, as a half-open link. Used to take MySQL away from a running
 * process without touching the shared server.
 */
export class TcpProxy {
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();
  private down = false;
  private frozen = false;
  port = 0;
  /** Connections carried to the target so far. */
  accepted = 0;

  constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {}

  async start(): Promise<this> {
    this.server = createServer((client) => {
      if (this.down) {
        client.resetAndDestroy();
        return;
      }
      this.accepted++;
      const upstream = connect(this.targetPort, this.targetHost);
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on('close', () => this.sockets.delete(s));
        s.on('error', () => undefined);
      }
      // Bytes are dropped while frozen: a half-open link, no reset and no answer.
      client.on('data', (chunk) => {
        if (!this.frozen) upstream.write(chunk);
      });
      upstream.on('data', (chunk) => {
        if (!this.frozen) client.write(chunk);
      });
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  /** Cuts every connection and refuses new ones until `restore()`. */
  cut(): void {
    this.down = true;
    for (const s of this.sockets) s.resetAndDestroy();
    this.sockets.clear();
  }

  restore(): void {
    this.down = false;
    this.frozen = false;
  }

  /** Lets connections stay open but carries nothing either way until `restore()`. */
  freeze(): void {
    this.frozen = true;
  }

  async stop(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }
}
