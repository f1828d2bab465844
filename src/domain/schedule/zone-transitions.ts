/**
 * A zone's UTC offset changes, read from Intl (Node's ICU tz database) once and kept.
 *
 * Intl answers one instant at a time (~2 µs a reading); cron expansion needs the offset
 * of every day it walks. So the timeline is cut into fixed chunks, each chunk sampled
 * once a day and every change located to the second, and later lookups are a table
 * read. Daily sampling is safe: no two offset changes in the tz database since 1900
 * lie less than four days apart (Africa/Freetown 1939; since 1970, seven days).
 */

const SECOND = 1000;
const DAY = 86_400_000;
const CHUNK_DAYS = 128;
const CHUNK = CHUNK_DAYS * DAY;
const CACHED_CHUNKS_MAX = 50_000;

/** From `at` on (epoch ms, a whole second) the zone's offset is `after`; just before, it was `before`. */
export interface OffsetChange {
  at: number;
  before: number;
  after: number;
}

/** The zone's offsets over [start, start + CHUNK]: the one at `start`, and the changes after it. */
interface Chunk {
  start: number;
  initial: number;
  /** Changes with start < at <= start + CHUNK, ascending. */
  changes: OffsetChange[];
}

const formatters = new Map<string, Intl.DateTimeFormat>();

/** Intl's formatter for the zone; throws a RangeError for a zone the runtime does not know. */
export function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

/** The offset (ms, east positive) Intl reads for the zone at the second holding `utcMs`. */
function intlOffset(timeZone: string, utcMs: number): number {
  const seconds = Math.floor(utcMs / SECOND) * SECOND;
  const w = { year: 0, month: 0, day: 0, hour: 0, minute: 0, second: 0 };
  for (const part of formatterFor(timeZone).formatToParts(seconds)) {
    if (part.type in w) w[part.type as keyof typeof w] = Number(part.value);
  }
  return Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second) - seconds;
}

/** Every change in (lo, hi], where the offset at lo is `from` and at hi is `to` (a change undone inside the interval would go unseen: see above). */
function locateChanges(
  timeZone: string,
  lo: number,
  from: number,
  hi: number,
  to: number,
  out: OffsetChange[],
) {
  let a = lo;
  let before = from;
  while (before !== to) {
    // The first second after `a` whose offset is no longer `before`.
    let l = a / SECOND;
    let h = hi / SECOND;
    while (h - l > 1) {
      const mid = Math.floor((l + h) / 2);
      if (intlOffset(timeZone, mid * SECOND) === before) l = mid;
      else h = mid;
    }
    const at = h * SECOND;
    const after = at === hi ? to : intlOffset(timeZone, at);
    out.push({ at, before, after });
    a = at;
    before = after;
  }
}

function buildChunk(timeZone: string, index: number): Chunk {
  const start = index * CHUNK;
  const initial = intlOffset(timeZone, start);
  const changes: OffsetChange[] = [];
  let previous = initial;
  for (let d = 1; d <= CHUNK_DAYS; d++) {
    const sample = start + d * DAY;
    const offset = intlOffset(timeZone, sample);
    if (offset !== previous) locateChanges(timeZone, sample - DAY, previous, sample, offset, changes);
    previous = offset;
  }
  return { start, initial, changes };
}

const chunks = new Map<string, Chunk>();

function chunkOf(timeZone: string, utcMs: number): Chunk {
  const index = Math.floor(utcMs / CHUNK);
  const key = `${index} ${timeZone}`;
  let chunk = chunks.get(key);
  if (!chunk) {
    chunk = buildChunk(timeZone, index);
    if (chunks.size >= CACHED_CHUNKS_MAX) chunks.clear();
    chunks.set(key, chunk);
  }
  return chunk;
}

/** The zone's offset from UTC at `utcMs`, in ms (east positive). */
export function zoneOffsetAt(timeZone: string, utcMs: number): number {
  const chunk = chunkOf(timeZone, utcMs);
  let offset = chunk.initial;
  for (const c of chunk.changes) {
    if (c.at > utcMs) break;
    offset = c.after;
  }
  return offset;
}

/** The zone's offset changes with fromMs <= at < toMs, ascending. */
export function offsetChangesBetween(timeZone: string, fromMs: number, toMs: number): OffsetChange[] {
  const out: OffsetChange[] = [];
  // A chunk holds the changes after its start, up to and including its end.
  for (let t = fromMs - 1; t < toMs + CHUNK; t += CHUNK) {
    const chunk = chunkOf(timeZone, t);
    for (const c of chunk.changes) {
      if (c.at >= fromMs && c.at < toMs) out.push(c);
    }
    if (chunk.start + CHUNK >= toMs) break;
  }
  return out;
}
