/**
 * The requests this process is answering. An all-roles process shares one event loop
 * between its API and a saturated executor; the executor asks this whether anyone waits
 * for an answer, so that an operator's disables and the console come before late runs.
 */
export class Foreground {
  private answering = 0;
  private answered = false;

  /** Counts a request from its arrival to its answer. */
  async serve<T>(answer: () => Promise<T>): Promise<T> {
    this.answering++;
    this.answered = true;
    try {
      return await answer();
    } finally {
      this.answering--;
    }
  }

  /** Whether a request was being answered at any time since the last call. */
  busySinceLastLook(): boolean {
    const busy = this.answered || this.answering > 0;
    this.answered = false;
    return busy;
  }
}
