/**
 * Every Redis key xtimer uses, built in one place. Times in keys are UTC.
 * Redis Cluster safe: a script touches keys of one hash tag only (a day's claims and
 * bloom filter; one timer's overlap slots), and commands on many keys are sent per slot
 * (SlotBatch). Untagged keys (slices, locks, bucket counts) spread over the masters.
 */
export interface Keys {
  slice(minuteKey: string, bucket: number): string;
  bucketCount(minuteKey: string): string;
  /** Timers placed in a minute so far (a counter): its bucket count follows it. */
  bucketTimers(minuteKey: string): string;
  /** Every bucket count a minute's runs were placed with (a set): where a run of it may sit. */
  bucketCountsUsed(minuteKey: string): string;
  sliceLock(minuteKey: string, bucket: number): string;
  migratorLock(windowKey: string): string;
  appLock(app: string): string;
  /**
   * The day's bloom filter of executed task keys. The day is a hash tag, shared with
   * that day's claim records, so one script can claim or finish a batch of runs and
   * touch the filter in the same Redis Cluster slot.
   */
  bloom(dayKey: string): string;
  /** Claim record of one run (who holds it, which attempt, until when), tagged with its day. */
  claim(dayKey: string, taskKey: string): string;
  /** A timer's overlap slots (tagged by timer): its run in flight, and its one buffered run. */
  overlap(timerId: number, slot: 'running' | 'buffered'): string;
  /** A timer as executors fire it (timer-copies.ts, compact), so that firing does not need MySQL. */
  timerCopy(timerId: number): string;
  /** Where earlier releases kept a timer's copy (its JSON): read while such copies live out their time. */
  legacyTimerCopy(timerId: number): string;
  /** An app's sealed signing secrets (app-copies.ts), likewise. */
  appCopy(app: string): string;
  /** The pause of the whole service, as executors read it (MySQL keeps it too). */
  servicePause(): string;
  /** Run outcomes MySQL could not take yet (a hash by task key), for whoever writes them next. */
  outcomeStash(): string;
  /** One compensator pass at a time across the cluster. */
  compensatorLock(): string;
  /** Held by the migrator sweeping runs past their misfire threshold, once per period. */
  lateSweepLock(): string;
  /** Present while the slices hold everything MySQL has planned; gone after Redis lost its data. */
  slicesIntact(): string;
  /** Written by /readyz: Redis is ready only while it takes a write. */
  readinessProbe(): string;
  /** Pub/sub channel announcing timer changes to every process's cache. */
  timerChanges(): string;
  /** Pub/sub channel announcing app changes (keys, signing secrets) to every process. */
  appChanges(): string;
  /** Mutating API calls of one app in one rate-limit window. */
  rateLimit(app: string, window: number): string;
  /**
   * BullMQ prefix of `queue`: hash-tagged so that each queue's keys share one cluster
   * slot. On a Redis Cluster each queue has a tag of its own, so the queues spread over
   * the masters; on one Redis they share the one tag they always had (a new tag would
   * strand the jobs queued under the old one at an upgrade).
   */
  bullPrefix(queue: string): string;
}

export interface KeyOptions {
  /** The keys are for a Redis Cluster: each BullMQ queue gets a hash tag of its own. */
  cluster?: boolean | undefined;
}

export function createKeys(prefix: string, options: KeyOptions = {}): Keys {
  const tag = prefix.replace(/:+$/, '');
  return {
    slice: (minute, bucket) => `${prefix}slice:${minute}_${bucket}`,
    bucketCount: (minute) => `${prefix}bucket_cnt:${minute}`,
    bucketTimers: (minute) => `${prefix}bucket_timers:${minute}`,
    bucketCountsUsed: (minute) => `${prefix}bucket_cnts:${minute}`,
    sliceLock: (minute, bucket) => `${prefix}lock:slice:${minute}_${bucket}`,
    migratorLock: (window) => `${prefix}lock:migrator:${window}`,
    appLock: (app) => `${prefix}lock:app:${app}`,
    bloom: (day) => `${prefix}bloom:{${day}}`,
    claim: (day, taskKey) => `${prefix}claim:{${day}}:${taskKey}`,
    compensatorLock: () => `${prefix}lock:compensator`,
    lateSweepLock: () => `${prefix}lock:late-sweep`,
    outcomeStash: () => `${prefix}outcomes:unwritten`,
    servicePause: () => `${prefix}pause:all`,
    timerCopy: (id) => `${prefix}copy:${id}`,
    legacyTimerCopy: (id) => `${prefix}timer:${id}`,
    appCopy: (app) => `${prefix}app:${app}`,
    overlap: (timerId, slot) => `${prefix}overlap:{${timerId}}:${slot}`,
    slicesIntact: () => `${prefix}slices:intact`,
    readinessProbe: () => `${prefix}readyz`,
    timerChanges: () => `${prefix}timer-changes`,
    appChanges: () => `${prefix}app-changes`,
    rateLimit: (app, window) => `${prefix}ratelimit:${app}:${window}`,
    bullPrefix: (queue) => (options.cluster ? `{${tag}:${queue}}` : `{${tag}}`),
  };
}
