import type { Redis } from 'ioredis';
import type { Keys } from '../storage/redis/keys.js';

/**
 * Timer change announcements over Redis pub/sub: every process drops its cached copy
 * of a changed timer at once, so a disable or update is visible within 1 s (SPEC §5.5).
 */
export class TimerEvents {
  constructor(
    private readonly redis: Redis,
    private readonly keys: Keys,
  ) {}

  async announce(timerId: number): Promise<void> {
    await this.redis.publish(this.keys.timerChanges(), String(timerId));
  }

  /**
   * Calls `onChange(id)` for every announced change, and `onChange(null)` after a
   * reconnect (announcements may have been missed: forget everything).
   * `subscriber` must be a dedicated connection.
   */
  async listen(subscriber: Redis, onChange: (timerId: number | null) => void): Promise<void> {
    const channel = this.keys.timerChanges();
    subscriber.on('message', (ch: string, message: string) => {
      if (ch === channel) onChange(Number(message));
    });
    let connectedBefore = subscriber.status === 'ready';
    subscriber.on('ready', () => {
      if (connectedBefore) onChange(null);
      connectedBefore = true;
    });
    await subscriber.subscribe(channel);
  }
}
