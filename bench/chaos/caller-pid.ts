/**
 * Which process made a call: the sink looks up the client end of each connection it
 * accepts in /proc (Linux), among the xtimer processes it was told of. The checker needs
 * it to tell a takeover (the caller was killed or frozen) from a second holder calling.
 *
 * Lookups are batched and asynchronous: a process holds hundreds of sockets while its
 * calls hang, and scanning their descriptors for every new connection, in the sink's
 * event loop, delayed answers by seconds.
 */
import { readdir, readFile, readlink } from 'node:fs/promises';

/** How often new connections are looked up, together. */
const BATCH_MS = 200;

interface Pending {
  clientPort: number;
  resolve: (pid: number | null) => void;
}

export class CallerPids {
  private pids: number[] = [];
  private pending: Pending[] = [];
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly serverPort: () => number) {}

  /** The processes a connection may come from (each start of one changes them). */
  setCandidates(pids: number[]): void {
    this.pids = pids;
  }

  /** The pid holding the connection from 127.0.0.1:`clientPort` (null: not found, or gone first). */
  lookUp(clientPort: number): Promise<number | null> {
    return new Promise((resolve) => {
      this.pending.push({ clientPort, resolve });
      this.timer ??= setTimeout(() => void this.flush(), BATCH_MS);
    });
  }

  private async flush(): Promise<void> {
    const batch = this.pending;
    this.pending = [];
    this.timer = null;
    try {
      const inodes = await clientInodes(this.serverPort());
      const owners = await socketOwners(this.pids);
      for (const p of batch) {
        const inode = inodes.get(p.clientPort);
        p.resolve(inode === undefined ? null : (owners.get(inode) ?? null));
      }
    } catch {
      for (const p of batch) p.resolve(null);
    }
  }
}

/** Client port → socket inode, of the IPv4 connections to `serverPort`. */
async function clientInodes(serverPort: number): Promise<Map<number, string>> {
  const out = new Map<number, string>();
  const table = await readFile('/proc/net/tcp', 'utf8');
  for (const line of table.split('\n').slice(1)) {
    // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode …
    const f = line.trim().split(/\s+/);
    if (f.length < 10) continue;
    const remote = Number.parseInt(f[2]!.split(':')[1]!, 16);
    if (remote === serverPort) out.set(Number.parseInt(f[1]!.split(':')[1]!, 16), f[9]!);
  }
  return out;
}

/** Socket inode → the process holding it, over `pids`. */
async function socketOwners(pids: number[]): Promise<Map<string, number>> {
  const owners = new Map<string, number>();
  await Promise.all(
    pids.map(async (pid) => {
      const fds = await readdir(`/proc/${pid}/fd`).catch(() => [] as string[]);
      await Promise.all(
        fds.map(async (fd) => {
          const link = await readlink(`/proc/${pid}/fd/${fd}`).catch(() => '');
          const m = /^socket:\[(\d+)\]$/.exec(link);
          if (m) owners.set(m[1]!, pid);
        }),
      );
    }),
  );
  return owners;
}
