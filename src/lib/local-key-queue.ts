/**
 * First come, first served per key, within one process: `enter` resolves when every
 * caller that entered one of the same keys before has left. Keys are entered in sorted
 * order, so callers taking several keys cannot deadlock each other.
 */
export class LocalKeyQueue {
  private readonly tails = new Map<string, Promise<void>>();

  /**
   * Waits for the turn on all `keys` until `deadline` (epoch ms). Returns the function
   * that leaves them, or null when the deadline came first (the place in the line is
   * given up as soon as it is reached, so those behind never wait for a caller gone).
   */
  async enter(keys: readonly string[], deadline: number): Promise<(() => void) | null> {
    const held: Array<() => void> = [];
    const leaveHeld = () => {
      for (const leave of held) leave();
    };
    for (const key of [...new Set(keys)].sort()) {
      const { turn, leave } = this.join(key);
      if (!(await beforeDeadline(turn, deadline))) {
        leaveHeld();
        void turn.then(leave);
        return null;
      }
      held.push(leave);
    }
    return leaveHeld;
  }

  private join(key: string): { turn: Promise<void>; leave: () => void } {
    const turn = this.tails.get(key) ?? Promise.resolve();
    let leave!: () => void;
    const left = new Promise<void>((resolve) => {
      leave = resolve;
    });
    const tail = turn.then(() => left);
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return { turn, leave };
  }
}

/** True when `turn` settles before `deadline`, false when the deadline comes first. */
async function beforeDeadline(turn: Promise<void>, deadline: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), Math.max(0, deadline - Date.now()));
  });
  try {
    return await Promise.race([turn.then(() => true as const), late]);
  } finally {
    clearTimeout(timer);
  }
}
