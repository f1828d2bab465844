/**
 * A brute-force reference for the DST rule (docs/schedules.md "Time zones and
 * daylight saving"), sharing no code with the scheduler: it reads the zone's wall clock with Intl
 * at every UTC minute, reads crons itself, and applies the rule to what it saw.
 *
 * - A frequent cron (minute or hour field starting with `*`) fires at every instant whose
 *   wall clock matches.
 * - A fixed-time cron fires each matching wall time once: at its first occurrence, or,
 *   for a wall time the clock jumped over, at that wall time read with the offset shown
 *   just before the jump.
 *
 * Offsets and their changes are assumed to fall on whole minutes (true of every zone
 * since 1970), so a minute's seconds show the same seconds on the wall clock; the scan
 * checks it.
 */

const MINUTE = 60_000;
const DAY = 86_400_000;

/** The wall clock of a zone at each UTC minute of a span: `walls[i]` is what `from + i` minutes shows, written as if UTC. */
export interface WallClockScan {
  zone: string;
  from: number;
  walls: number[];
}

const readers = new Map<string, Intl.DateTimeFormat>();

/** What the zone's wall clock shows at `utcMs`, to the second, written as if UTC. */
export function wallClockAt(zone: string, utcMs: number): number {
  let reader = readers.get(zone);
  if (!reader) {
    // sv-SE writes ISO-like "2027-03-14 02:30:00".
    reader = new Intl.DateTimeFormat('sv-SE', {
      timeZone: zone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
    });
    readers.set(zone, reader);
  }
  return Date.parse(`${reader.format(utcMs).replace(' ', 'T')}Z`);
}

/** Reads the wall clock at every UTC minute of [fromMs, toMs) (fromMs rounded down to a minute). */
export function scanWallClock(zone: string, fromMs: number, toMs: number): WallClockScan {
  const from = Math.floor(fromMs / MINUTE) * MINUTE;
  const walls: number[] = [];
  for (let t = from; t < toMs; t += MINUTE) {
    const wall = wallClockAt(zone, t);
    if (wall % MINUTE !== 0) throw new Error(`${zone}: offset at ${new Date(t).toISOString()} has seconds`);
    walls.push(wall);
  }
  return { zone, from, walls };
}

/** The instants in [fromMs, toMs) at which the zone's offset changes, to the minute. */
export function offsetChangesOf(zone: string, fromMs: number, toMs: number): number[] {
  const offset = (t: number) => wallClockAt(zone, t) - t;
  const found: number[] = [];
  // Offset changes lie at least four days apart (tz database since 1900): a daily reading misses none.
  for (let t = fromMs; t < toMs; t += DAY) {
    const before = offset(t);
    if (offset(t + DAY) === before) continue;
    let lo = t / MINUTE;
    let hi = (t + DAY) / MINUTE;
    while (hi - lo > 1) {
      const mid = Math.floor((lo + hi) / 2);
      if (offset(mid * MINUTE) === before) lo = mid;
      else hi = mid;
    }
    if (hi * MINUTE < toMs) found.push(hi * MINUTE);
  }
  return found;
}

/** A cron as the reference reads it. */
interface ReferenceCron {
  seconds: Set<number>;
  minutes: Set<number>;
  hours: Set<number>;
  matchesDate(wall: Date): boolean;
  frequent: boolean;
}

/** Reads `*`, `?`, `a`, `a-b`, `*∕n`, `a∕n`, `a-b∕n` and lists of them. */
function readField(text: string, lo: number, hi: number): Set<number> {
  const values = new Set<number>();
  for (const part of text.split(',')) {
    const [range, step] = part.split('/') as [string, string | undefined];
    let a = lo;
    let b = hi;
    if (range !== '*' && range !== '?') {
      const [x, y] = range.split('-');
      a = Number(x);
      b = y !== undefined ? Number(y) : step !== undefined ? hi : a;
    }
    for (let v = a; v <= b; v += step === undefined ? 1 : Number(step)) values.add(v);
  }
  return values;
}

const daysIn = (d: Date) => new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0)).getUTCDate();

/** Day of month: the values above, or `L` (the month's last day). */
function readDayOfMonth(text: string): (d: Date) => boolean {
  if (text === 'L') return (d) => d.getUTCDate() === daysIn(d);
  const days = readField(text, 1, 31);
  return (d) => days.has(d.getUTCDate());
}

/** Day of week (0 or 7 Sunday): the values above, `dL` (the month's last such day) or `d#n` (its n-th). */
function readDayOfWeek(text: string): (d: Date) => boolean {
  const last = /^(\d)L$/.exec(text);
  if (last) return (d) => d.getUTCDay() === Number(last[1]) % 7 && d.getUTCDate() + 7 > daysIn(d);
  const nth = /^(\d)#(\d)$/.exec(text);
  if (nth) {
    return (d) => d.getUTCDay() === Number(nth[1]) % 7 && Math.ceil(d.getUTCDate() / 7) === Number(nth[2]);
  }
  const days = new Set([...readField(text, 0, 7)].map((v) => v % 7));
  return (d) => days.has(d.getUTCDay());
}

/** Reads a 5-field (minute first), 6-field (second first) or 7-field (second first, year last) cron. */
export function readCron(expression: string): ReferenceCron {
  const f = expression.trim().split(/\s+/);
  const [second, minute, hour, dom, month, dow, year] = f.length === 5 ? ['0', ...f] : f;
  if (!minute || !hour || !dom || !month || !dow) throw new Error(`reference: cannot read "${expression}"`);
  const months = readField(month, 1, 12);
  const years = year === undefined ? null : readField(year, 1970, 2199);
  const domMatch = readDayOfMonth(dom);
  const dowMatch = readDayOfWeek(dow);
  const domAny = dom === '*' || dom === '?';
  const dowAny = dow === '*' || dow === '?';
  return {
    seconds: readField(second ?? '0', 0, 59),
    minutes: readField(minute, 0, 59),
    hours: readField(hour, 0, 23),
    frequent: minute.startsWith('*') || hour.startsWith('*'),
    matchesDate(d) {
      if (years && !years.has(d.getUTCFullYear())) return false;
      if (!months.has(d.getUTCMonth() + 1)) return false;
      // Vixie: with both day fields restricted, either may match.
      if (domAny || dowAny) return (domAny || domMatch(d)) && (dowAny || dowMatch(d));
      return domMatch(d) || dowMatch(d);
    },
  };
}

function matchesMinute(cron: ReferenceCron, wall: number): boolean {
  const d = new Date(wall);
  return cron.minutes.has(d.getUTCMinutes()) && cron.hours.has(d.getUTCHours()) && cron.matchesDate(d);
}

/**
 * The instants in [fromMs, toMs) at which `cron` fires in the scanned zone, ascending and
 * unique. The scan must reach a day beyond the window on both sides: every occurrence of
 * a wall time, and every jump, lies within a day of the instants it resolves to.
 */
export function referenceRuns(
  expression: string,
  scan: WallClockScan,
  fromMs: number,
  toMs: number,
): number[] {
  if (scan.from > fromMs - DAY || scan.from + scan.walls.length * MINUTE < toMs + DAY) {
    throw new Error('reference: the scan must reach a day beyond the window');
  }
  const cron = readCron(expression);
  const seconds = [...cron.seconds].sort((a, b) => a - b);
  const out = new Set<number>();
  const add = (minuteStart: number) => {
    for (const s of seconds) {
      const t = minuteStart + s * 1000;
      if (t >= fromMs && t < toMs) out.add(t);
    }
  };
  const instantOf = (i: number) => scan.from + i * MINUTE;
  if (cron.frequent) {
    scan.walls.forEach((wall, i) => {
      if (matchesMinute(cron, wall)) add(instantOf(i));
    });
  } else {
    // Each wall minute once: where it first shows, or where the offset before its jump reads it.
    const resolved = new Map<number, number>();
    scan.walls.forEach((wall, i) => {
      if (!resolved.has(wall)) resolved.set(wall, instantOf(i));
    });
    scan.walls.forEach((wall, i) => {
      const previous = scan.walls[i - 1];
      if (previous === undefined) return;
      const offsetBefore = previous - instantOf(i - 1);
      for (let skipped = previous + MINUTE; skipped < wall; skipped += MINUTE) {
        if (!resolved.has(skipped)) resolved.set(skipped, skipped - offsetBefore);
      }
    });
    for (const [wall, instant] of resolved) if (matchesMinute(cron, wall)) add(instant);
  }
  return [...out].sort((a, b) => a - b);
}
