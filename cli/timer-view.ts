import type { components } from '../client/index.js';

type Timer = components['schemas']['Timer'];

/** The schedule as the API takes it: a cron, `every 30s` (with its offset), or a one-shot's `at`. */
export const scheduleOf = (t: Timer): string => {
  if (t.cron) return t.cron;
  if (t.every) return `every ${t.every}${t.offset && t.offset !== '0s' ? ` offset ${t.offset}` : ''}`;
  return t.at ? `at ${t.at}` : '';
};
