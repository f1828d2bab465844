import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { Metrics } from '../../src/observability/metrics.js';

/**
 * ops/prometheus-alerts.yml watches what the service really exports: every
 * xtimer_* series its rules name is a metric of src/observability/metrics.ts (or one of
 * a histogram's series), every label they select on is one that metric has, and
 * promtool accepts the file.
 */

const FILE = fileURLToPath(new URL('../../ops/prometheus-alerts.yml', import.meta.url));
const PROMTOOL = ['/usr/bin/promtool', '/usr/local/bin/promtool'].find((p) => existsSync(p));

interface Rule {
  alert: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}
const rules = (parse(readFileSync(FILE, 'utf8')) as { groups: Array<{ rules: Rule[] }> }).groups.flatMap(
  (g) => g.rules,
);

/** Exported metric name → its label names (histograms also under _bucket, _sum and _count). */
const exported = new Map<string, string[]>();
beforeAll(async () => {
  const { registry } = new Metrics();
  for (const m of await registry.getMetricsAsJSON()) {
    const declared = [
      ...((registry.getSingleMetric(m.name) as unknown as { labelNames?: string[] }).labelNames ?? []),
      ...m.values.flatMap((v) => Object.keys(v.labels)),
    ];
    exported.set(m.name, declared);
    if (String(m.type) === 'histogram') {
      for (const suffix of ['_bucket', '_sum', '_count'])
        exported.set(`${m.name}${suffix}`, [...declared, 'le']);
    }
  }
});

/** The xtimer_* selectors of an expression: metric name and the labels matched in braces. */
function selectors(expr: string): Array<{ name: string; labels: string[] }> {
  return [...expr.matchAll(/\b(xtimer_[a-z0-9_]+)(?:\{([^}]*)\})?/g)].map((m) => ({
    name: m[1]!,
    labels: [...(m[2] ?? '').matchAll(/([a-z_]+)\s*(?:=~|!~|!=|=)/g)].map((l) => l[1]!),
  }));
}

describe('ops/prometheus-alerts.yml', () => {
  it('has rules on lateness, due runs waiting, queue depth, failed and missed runs', () => {
    const names = rules.map((r) => r.alert);
    expect(names).toEqual(
      expect.arrayContaining([
        'XtimerLateRuns',
        'XtimerDueRunsWaiting',
        'XtimerExecuteBacklog',
        'XtimerFailedRuns',
        'XtimerMissedRuns',
      ]),
    );
    expect(new Set(names).size).toBe(names.length);
  });

  it.each(rules.map((r) => [r.alert, r] as const))(
    '%s names only metrics and labels xtimer exports',
    (_name, rule) => {
      const used = selectors(rule.expr);
      expect(used.length).toBeGreaterThan(0);
      for (const { name, labels } of used) {
        expect(exported.has(name), `${name} is not exported`).toBe(true);
        for (const label of labels)
          expect(exported.get(name), `${name} has no label ${label}`).toContain(label);
      }
    },
  );

  it.each(rules.map((r) => [r.alert, r] as const))('%s has a severity and a summary', (_name, rule) => {
    expect(['info', 'warning', 'critical']).toContain(rule.labels?.severity);
    expect(rule.annotations?.summary).toBeTruthy();
  });

  it('is valid for promtool', () => {
    // Never skipped: without promtool the check fails and says how to get it (.ci/run does).
    if (!PROMTOOL)
      throw new Error(
        'promtool not found: apt-get install -y --no-install-recommends prometheus (it checks ops/prometheus-alerts.yml)',
      );
    const out = execFileSync(PROMTOOL, ['check', 'rules', FILE], { encoding: 'utf8' });
    expect(out).toContain('SUCCESS');
  });
});
