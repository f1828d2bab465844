/**
 * Which process made a call: the sink looks up the client end of each connection it
 * accepts in /proc (Linux), among the xtimer processes it was told of. The checker needs
 * it to tell a takeover (the caller was killed or frozen) from a second holder calling.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

export class CallerPids {
  /** Socket inode → the process holding it, as last scanned. */
  private readonly owners = new Map<string, number>();
  private pids: number[] = [];

  /** The processes a connection may come from (each start of one changes them). */
  setCandidates(pids: number[]): void {
    this.pids = pids;
    this.owners.clear();
  }

  /** The pid holding the connection from 127.0.0.1:`clientPort` to `serverPort`, or null. */
  resolve(clientPort: number, serverPort: number): number | null {
    const inode = clientInode(clientPort, serverPort);
    if (inode === null) return null;
    if (!this.owners.has(inode)) this.rescan();
    return this.owners.get(inode) ?? null;
  }

  private rescan(): void {
    this.owners.clear();
    for (const pid of this.pids) {
      let fds: string[];
      try {
        fds = readdirSync(`/proc/${pid}/fd`);
      } catch {
        continue; // gone, or not Linux
      }
      for (const fd of fds) {
        try {
          const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
          if (m) this.owners.set(m[1]!, pid);
        } catch {
          // closed while we looked
        }
      }
    }
  }
}

/** The inode of the IPv4 socket whose local port is `clientPort` and remote port `serverPort`. */
function clientInode(clientPort: number, serverPort: number): string | null {
  let table: string;
  try {
    table = readFileSync('/proc/net/tcp', 'utf8');
  } catch {
    return null;
  }
  for (const line of table.split('\n').slice(1)) {
    // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode …
    const f = line.trim().split(/\s+/);
    if (f.length < 10) continue;
    const local = Number.parseInt(f[1]!.split(':')[1]!, 16);
    const remote = Number.parseInt(f[2]!.split(':')[1]!, 16);
    if (local === clientPort && remote === serverPort) return f[9]!;
  }
  return null;
}
