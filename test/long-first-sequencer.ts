import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The files that take longest, longest first (measured in CI on the 2-core box). Vitest
 * starts the longest first only from its cache of earlier runs; a fresh clone has none and
 * orders by file size, which started a 3-minute file last and stretched CI by minutes.
 * Only an order: a file missing here runs after these, as vitest would order it.
 */
const LONGEST = [
  'test/e2e/cluster-down.test.ts',
  'test/e2e/near-term-boundary.test.ts',
  'test/e2e/timers-as-code.test.ts',
  'test/e2e/graceful-shutdown.test.ts',
  'test/e2e/kill-takeover.test.ts',
  'test/e2e/mysql-outage.test.ts',
  'test/e2e/galera.test.ts',
  'test/e2e/frozen-owner.test.ts',
  'test/e2e/redis-sentinel.test.ts',
  'test/e2e/run-controls.test.ts',
  'test/e2e/overload-recovery.test.ts',
  'test/e2e/dashboard.test.ts',
  'test/integration/api/fuzz.test.ts',
];

export class LongFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const base = await super.sort(files);
    const rank = (spec: TestSpecification) => {
      const at = LONGEST.indexOf(relative(spec.project.config.root, spec.moduleId));
      return at === -1 ? LONGEST.length : at;
    };
    const order = new Map(base.map((spec, i) => [spec, i]));
    // Projects keep their order (group, then name); within one, the longest go first.
    const projectAt = new Map<unknown, number>();
    base.forEach((spec, i) => {
      if (!projectAt.has(spec.project)) projectAt.set(spec.project, i);
    });
    return [...base].sort(
      (a, b) =>
        projectAt.get(a.project)! - projectAt.get(b.project)! ||
        rank(a) - rank(b) ||
        order.get(a)! - order.get(b)!,
    );
  }
}
