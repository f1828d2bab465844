import { stablePick } from '../../lib/stable-hash.js';
import {
  CRON_FIELDS_5,
  CRON_FIELDS_6,
  CRON_FIELDS_7,
  type CronProblem,
  CronSyntaxError,
  findCronProblem,
} from './cron-schedule.js';

/**
 * `H` in a cron field (as Jenkins writes it): a value chosen by a stable hash of the
 * timer's app and name, so the same timer gets the same minute on every node and many
 * timers written `H * * * *` spread over the hour. Resolved to plain cron before
 * cron-parser sees the expression (its own `H` is random per process).
 *
 *   H          one value in the field's range (day of month: 1-28, valid in every month)
 *   H(a-b)     one value in a-b
 *   H/n        every n, starting at a hashed value below n
 *   H(a-b)/n   every n within a-b, starting at a hashed value
 */

const RANGES: Record<string, readonly [number, number]> = {
  second: [0, 59],
  minute: [0, 59],
  hour: [0, 23],
  dayOfMonth: [1, 28],
  month: [1, 12],
  dayOfWeek: [0, 6],
};

const HASH_ITEM = /^H(?:\((\d{1,4})-(\d{1,4})\))?(?:\/(\d{1,4}))?$/;
/** An item that means H (not a name holding the letter, such as THU). */
const STARTS_WITH_H = /^H(?:$|[(/])/;

/** Does the expression use H anywhere? */
export function hasHashes(expression: string): boolean {
  return expression
    .trim()
    .split(/\s+/)
    .some((f) => f.split(',').some((item) => STARTS_WITH_H.test(item)));
}

/** The seed a timer's H values come from: its app and name. */
export function hashSeed(t: { app?: string | undefined; name?: string | undefined }): string {
  return `${t.app ?? ''}\0${t.name ?? ''}`;
}

/**
 * A timer's cron with its H fields resolved (they differ from timer to timer: two timers'
 * same text can make different schedules); null without a cron.
 */
export function resolvedCronOf(t: {
  app?: string | undefined;
  name?: string | undefined;
  cron: string | null;
}): string | null {
  return t.cron === null ? null : resolveHashedCron(t.cron, hashSeed(t));
}

/** The expression with every H resolved for `seed`; unchanged if it has none. */
export function resolveHashedCron(expression: string, seed: string): string {
  if (!hasHashes(expression)) return expression;
  const fields = expression.trim().split(/\s+/);
  const names = fields.length === 5 ? CRON_FIELDS_5 : fields.length === 6 ? CRON_FIELDS_6 : CRON_FIELDS_7;
  return fields
    .map((field, i) => {
      const name: string = names[i] ?? `field ${i + 1}`;
      return field
        .split(',')
        .map((item, j) =>
          STARTS_WITH_H.test(item) ? resolveItem(item, name, `${seed}\0${name}\0${j}`) : item,
        )
        .join(',');
    })
    .join(' ');
}

function resolveItem(item: string, field: string, seed: string): string {
  const range = RANGES[field];
  const fail = (message: string): never => {
    throw new CronSyntaxError({ field, message: `"${item}" ${message}` });
  };
  if (!range)
    return fail('is not allowed: H is for second, minute, hour, day of month, month and day of week');
  const m = HASH_ITEM.exec(item);
  if (!m) return fail('is not H, H(a-b), H/n or H(a-b)/n');
  let [lo, hi] = range;
  if (m[1] !== undefined) {
    const a = Number(m[1]);
    const b = Number(m[2]);
    if (a > b || a < range[0] || b > range[1]) fail(`needs a range within ${range[0]}-${range[1]}`);
    [lo, hi] = [a, b];
  }
  const size = hi - lo + 1;
  if (m[3] === undefined) return String(lo + stablePick(seed, size));
  const step = Number(m[3]);
  if (step < 1) fail('needs a step of at least 1');
  return `${lo + stablePick(seed, Math.min(step, size))}-${hi}/${step}`;
}

/**
 * Explains why a cron as written (H included) is not valid, or null if it is. Whether H
 * resolves is the same for every seed, so any seed checks it.
 */
export function findHashedCronProblem(
  expression: string,
  options: { allowYear?: boolean } = {},
): CronProblem | null {
  let resolved: string;
  try {
    resolved = resolveHashedCron(expression, '');
  } catch (err) {
    if (err instanceof CronSyntaxError) return err.problem;
    throw err;
  }
  return findCronProblem(resolved, { allowYear: options.allowYear ?? false });
}
