/** One line of the benchmark's table: a scenario, a system, its lateness and its losses. */
import type { ArrivalStats } from './arrivals.js';

/** `floor`: no scheduler, a bare client sending at each instant: what the harness itself costs. */
export type System = 'xtimer' | 'bullmq' | 'floor';

export interface BenchLine {
  scenario: string;
  system: System;
  timers: number;
  seconds: number;
  expected: number;
  delivered: number;
  /** Runs never delivered that xtimer can account for: recorded missed or skipped by its misfire policy. */
  missedByPolicy?: number;
  /** Runs never delivered and unaccounted for (lost). */
  missing: number;
  duplicates: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  firesPerSec: number;
  cpu: Record<string, number>;
  redisBytesPerPendingRun: number | null;
  /** p99 of each 10 s of a line longer than 30 s: when in the line its lateness came. */
  stretchesP99?: number[];
  /** A run missing or doubled. */
  failed: boolean;
  /** The timing targets of bench/goals.ts this line missed. */
  offTarget?: string[];
}

const fmt = (ms: number) => (Number.isNaN(ms) ? '   -' : `${String(ms).padStart(4)}ms`);

const verdict = (l: BenchLine) =>
  `${l.failed ? ' FAILED' : ''}${l.offTarget?.length ? ` OFF TARGET (${l.offTarget.join('; ')})` : ''}`;

export function printLine(l: BenchLine): void {
  const cpu = Object.entries(l.cpu)
    .map(([k, v]) => `${k} ${v}%`)
    .join(', ');
  process.stdout.write(
    `  ${l.scenario.padEnd(22)} ${l.system.padEnd(7)} timers=${String(l.timers).padStart(5)} ` +
      `p50=${fmt(l.p50)} p90=${fmt(l.p90)} p99=${fmt(l.p99)} max=${fmt(l.max)} ` +
      `fires/s=${l.firesPerSec}${l.missedByPolicy ? ` missed(policy)=${l.missedByPolicy}` : ''} missing=${l.missing} dup=${l.duplicates}${verdict(l)} | cpu: ${cpu}` +
      `${l.redisBytesPerPendingRun === null ? '' : ` | redis ${l.redisBytesPerPendingRun} B/pending run`}\n`,
  );
  if (l.stretchesP99) process.stdout.write(`    p99 by 10 s: ${l.stretchesP99.join(' ')}\n`);
}

export function table(lines: BenchLine[]): string {
  const head =
    '| scenario | system | timers | p50 ms | p90 ms | p99 ms | max ms | fires/s | missing | dup | CPU % (process: % of a core) |';
  const sep = '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|';
  const rows = lines.map(
    (l) =>
      `| ${l.scenario} | ${l.system} | ${l.timers} | ${l.p50} | ${l.p90} | ${l.p99} | ${l.max} | ${l.firesPerSec} | ${l.missing}${l.missedByPolicy ? ` (+${l.missedByPolicy} missed by policy)` : ''} | ${l.duplicates} | ${Object.entries(
        l.cpu,
      )
        .map(([k, v]) => `${k} ${v}`)
        .join(', ')}${verdict(l)} |`,
  );
  return [head, sep, ...rows].join('\n');
}

/** An xtimer line of the delivery scenarios; `missing` defaults to expected − delivered. */
export function deliveryLine(l: {
  scenario: string;
  /** xtimer unless given (a floor line beside it). */
  system?: BenchLine['system'];
  timers: number;
  seconds: number;
  expected: number;
  missing?: number;
  stats: ArrivalStats;
  cpu: Record<string, number>;
  offTarget: string[];
}): BenchLine {
  const missing = l.missing ?? l.expected - l.stats.delivered;
  return {
    scenario: l.scenario,
    system: l.system ?? 'xtimer',
    timers: l.timers,
    seconds: l.seconds,
    expected: l.expected,
    delivered: l.stats.delivered,
    missing,
    duplicates: l.stats.doubled,
    p50: l.stats.p50,
    p90: l.stats.p90,
    p99: l.stats.p99,
    max: l.stats.max,
    firesPerSec: Math.round(l.stats.delivered / l.seconds),
    cpu: l.cpu,
    redisBytesPerPendingRun: null,
    failed: missing !== 0 || l.stats.doubled > 0,
    offTarget: l.offTarget,
  };
}
