import { isCluster, type RedisClient } from '../../storage/redis/connection.js';
import type { Keys } from '../../storage/redis/keys.js';

/**
 * Timer change announcements over Redis pub/sub: every process drops its cached copy
 * of a changed timer at once, so a disable or update is visible within 1 s.
 * App changes (a rotated signing secret) travel the same way on their own channel.
 */
export class TimerEvents {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keys,
  ) {}

  async announce(timerId: number): Promise<void> {
    await this.redis.publish(this.keys.timerChanges(), String(timerId));
  }

  /** Tells every process an app's keys or signing secrets changed. */
  async announceApp(app: string): Promise<void> {
    await this.redis.publish(this.keys.appChanges(), app);
  }

  /**
   * Calls `onChange(id)` for every announced change, and `onChange(null)` after a
   * reconnect (announcements may have been missed: forget everything).
   * `subscriber` must be a dedicated connection.
   */
  async listen(subscriber: RedisClient, onChange: (timerId: number | null) => void): Promise<void> {
    await this.subscribe(subscriber, this.keys.timerChanges(), (m) =>
      onChange(m === null ? null : Number(m)),
    );
  }

  /** Like listen, for app changes: `onChange(app)`, or `onChange(null)` after a reconnect. */
  async listenApps(subscriber: RedisClient, onChange: (app: string | null) => void): Promise<void> {
    await this.subscribe(subscriber, this.keys.appChanges(), onChange);
  }

  private async subscribe(
    subscriber: RedisClient,
    channel: string,
    onMessage: (message: string | null) => void,
  ): Promise<void> {
    subscriber.on('message', (ch: string, message: string) => {
      if (ch === channel) onMessage(message);
    });
    let connectedBefore = subscriber.status === 'ready';
    subscriber.on('ready', () => {
      if (connectedBefore) onMessage(null);
      connectedBefore = true;
    });
    // A cluster client moves its subscription to another node without a new 'ready'
    // when the node it listened on fails: announcements may have been missed then too.
    if (isCluster(subscriber)) subscriber.on('-node', () => onMessage(null));
    await subscriber.subscribe(channel);
  }
}
