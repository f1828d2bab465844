/**
 * What the process's liveness (/healthz) rests on beyond answering at all: threads that
 * must keep beating. The roles thread beats every second; one silent for long is wedged
 * (a loop that never yields), and only a restart brings its runs back, while the main
 * thread would go on answering /healthz by itself.
 */
/** How often a watched thread beats, and how long a silence /healthz allows it. */
export const BEAT_EVERY_MS = 1000;
export const SILENT_LIMIT_MS = 60_000;

export class Liveness {
  private readonly hearts = new Map<string, { lastMs: number; limitMs: number }>();

  /** A monotonic clock by default: a wall clock stepped by NTP would read as a silence. */
  constructor(private readonly now: () => number = () => performance.now()) {}

  /** Watches `name` from now: it is counted silent once `limitMs` pass without a beat. */
  watch(name: string, limitMs = SILENT_LIMIT_MS): void {
    this.hearts.set(name, { lastMs: this.now(), limitMs });
  }

  beat(name: string): void {
    const heart = this.hearts.get(name);
    if (heart) heart.lastMs = this.now();
  }

  /** Seconds since each watched thread last beat. */
  silences(): Array<{ name: string; seconds: number }> {
    const now = this.now();
    return [...this.hearts].map(([name, h]) => ({ name, seconds: (now - h.lastMs) / 1000 }));
  }

  /** Alive unless a watched thread is past its limit; each one's state by name. */
  report(): { alive: boolean; checks: Record<string, string> } {
    const now = this.now();
    let alive = true;
    const checks: Record<string, string> = {};
    for (const [name, h] of this.hearts) {
      const silent = now - h.lastMs;
      if (silent <= h.limitMs) checks[name] = 'ok';
      else {
        alive = false;
        checks[name] = `thread silent for ${Math.round(silent / 1000)} s`;
      }
    }
    return { alive, checks };
  }
}
