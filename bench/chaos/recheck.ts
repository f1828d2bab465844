/**
 * `node --import tsx bench/chaos/recheck.ts <output dir>`: judges a finished chaos run
 * again from what it left (journal.jsonl, evidence.json), without running anything: for
 * reading a run's violations again, or trying a change to the checker on a real run.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { check, DEFAULT_CHECK_SETTINGS } from './checker.js';
import type { JournalEvent } from './journal.js';
import { type Evidence, verdict } from './report.js';

const dir = process.argv[2];
if (!dir) {
  process.stderr.write('usage: recheck.ts <chaos output dir>\n');
  process.exit(2);
}
const journal = readFileSync(join(dir, 'journal.jsonl'), 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((line) => JSON.parse(line) as JournalEvent);
const evidence = JSON.parse(readFileSync(join(dir, 'evidence.json'), 'utf8')) as Evidence;
const result = check({
  journal,
  calls: evidence.calls,
  rows: evidence.rows,
  settings: { ...DEFAULT_CHECK_SETTINGS, checkUntil: evidence.checkUntil },
});
for (const line of verdict(journal, evidence.t0, result)) process.stdout.write(`${line}\n`);
process.exit(result.violations.length === 0 ? 0 : 1);
