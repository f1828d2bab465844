/** The chaos run's calls to xtimer's API: timers created, changed, disabled, enabled, deleted. */
import type { TimerJson } from './timer-def.js';

/** A call gets this long: a process frozen or cut off mid-call must not stall the run. */
const CALL_TIMEOUT_MS = 10_000;

export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number | null,
  ) {
    super(message);
  }
}

export type TimerAnswer = TimerJson & { id: number };

export class TimerApi {
  constructor(private readonly base: string) {}

  create(body: Record<string, unknown>): Promise<TimerAnswer> {
    return this.call('POST', '/api/v1/timers', body) as Promise<TimerAnswer>;
  }

  patch(id: number, body: Record<string, unknown>): Promise<TimerAnswer> {
    return this.call('PATCH', `/api/v1/timers/${id}`, body) as Promise<TimerAnswer>;
  }

  disable(id: number): Promise<TimerAnswer> {
    return this.call('POST', `/api/v1/timers/${id}/disable`, {}) as Promise<TimerAnswer>;
  }

  enable(id: number): Promise<TimerAnswer> {
    return this.call('POST', `/api/v1/timers/${id}/enable`, {}) as Promise<TimerAnswer>;
  }

  async delete(id: number): Promise<void> {
    await this.call('DELETE', `/api/v1/timers/${id}`);
  }

  /** The timer, or null if there is none (deleted, or never created). */
  async get(id: number): Promise<TimerAnswer | null> {
    try {
      return (await this.call('GET', `/api/v1/timers/${id}`)) as TimerAnswer;
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) return null;
      throw err;
    }
  }

  /** The app's timer of that name, or null. */
  async find(app: string, name: string): Promise<TimerAnswer | null> {
    const page = (await this.call(
      'GET',
      `/api/v1/timers?app=${encodeURIComponent(app)}&q=${encodeURIComponent(name)}&limit=100`,
    )) as { items: TimerAnswer[] };
    return page.items.find((t) => t.name === name) ?? null;
  }

  /** One call; the app's lock being busy (409 APP_BUSY) or a 429 is tried again, a few times. */
  private async call(method: string, path: string, body?: unknown): Promise<unknown> {
    for (let tries = 1; ; tries++) {
      let res: Response;
      try {
        // Open mode wants every change to say it is JSON, a bodiless one too (docs/security.md).
        res = await fetch(`${this.base}${path}`, {
          method,
          headers: method === 'GET' ? {} : { 'content-type': 'application/json' },
          body: body === undefined ? null : JSON.stringify(body),
          signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
        });
      } catch (err) {
        throw new ApiError(`${method} ${path}: ${(err as Error).message}`, null);
      }
      const text = await res.text();
      if (res.status < 400) return text ? JSON.parse(text) : null;
      const busy = (res.status === 409 && text.includes('APP_BUSY')) || res.status === 429;
      if (!busy || tries >= 5)
        throw new ApiError(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`, res.status);
      await new Promise((r) => setTimeout(r, 200 * tries));
    }
  }
}
