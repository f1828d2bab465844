/**
 * npm run chaos -- --seed=S --minutes=M [--procs=3] [--timers=40] [--settle=90] [--out=DIR]
 *                  [--mysql=mysql://root@127.0.0.1:3306] [--redis=redis://127.0.0.1:6379]
 *
 * A seeded chaos run: a real sink, `procs` xtimer processes (all roles, MySQL through a
 * proxy each), timers in two apps calling the sink, then M minutes of the plan's faults
 * and changes (bench/chaos/plan.ts). Then everything is restored, the backlog settles, and
 * the checker (bench/chaos/checker.ts) judges every owed run. Exit 0 only if it passes.
 * The journal, the sink's calls and each process's log stay in the output directory.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ChaosStores } from './chaos-stores.js';
import { check, DEFAULT_CHECK_SETTINGS } from './checker.js';
import { ChaosDriver } from './driver.js';
import { Fleet } from './fleet.js';
import { Journal } from './journal.js';
import { planChaos } from './plan.js';
import { type Evidence, Reporter, verdict } from './report.js';
import { ChaosSink } from './sink-control.js';

const arg = (name: string): string | undefined =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const num = (name: string, fallback: number) => Number(arg(name) ?? fallback);

const seed = num('seed', 1);
const minutes = num('minutes', 2);
const procs = num('procs', 3);
const timers = num('timers', 40);
/** The longest the backlog may take to settle after the restore; past it, what is unsettled is a violation. */
const settleMs = num('settle', DEFAULT_CHECK_SETTINGS.pendingGraceMs / 1000) * 1000;
const mysqlServer = arg('mysql') ?? 'mysql://root@127.0.0.1:3306';
const redisUrl = arg('redis') ?? 'redis://127.0.0.1:6379';
const out = arg('out') ?? mkdtempSync(join(tmpdir(), `xtimer-chaos-${seed}-`));

const say = (line: string) => process.stdout.write(`${line}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** What must be undone however the run ends, newest first. */
const undo: Array<() => Promise<void> | void> = [];
let interrupted = false;

async function cleanUp(): Promise<void> {
  for (const step of undo.splice(0).reverse()) {
    try {
      await step();
    } catch (err) {
      process.stderr.write(`chaos: clean-up step failed: ${(err as Error).message}\n`);
    }
  }
}

async function main(): Promise<number> {
  const startedAt = Date.now();
  mkdirSync(out, { recursive: true });
  const plan = planChaos({ seed, minutes, procs, timers });
  const journal = new Journal(join(out, 'journal.jsonl'));
  say(`chaos: seed=${seed} minutes=${minutes} procs=${procs} timers=${timers}; output in ${out}`);

  const stores = await ChaosStores.create(mysqlServer, redisUrl, seed);
  undo.push(() => stores.cleanup());
  const sink = await ChaosSink.start(join(out, 'calls.jsonl'));
  undo.push(() => sink.stop());
  const fleet = new Fleet({
    size: procs,
    env: {
      REDIS_URL: redisUrl,
      XTIMER_PREFIX: stores.prefix,
      // The sink listens on 127.0.0.1: let the SSRF guard allow it.
      CALLBACK_ALLOW_HOSTS: '127.0.0.1',
      LOG_LEVEL: 'info',
      // Short windows: a timer gets minutes of runs planned, not hours, and migrations come often.
      MIGRATE_STEP_MINUTES: '2',
    },
    mysql: stores.mysqlAddress(),
    mysqlUrlVia: (port) => stores.mysqlUrlVia(port),
    logDir: out,
    journal,
    onPids: (pids) => sink.callers(pids),
  });
  undo.push(() => fleet.close());
  // Never leave a process behind, however this one ends.
  process.on('exit', () => {
    fleet.killNow();
    sink.stop();
  });
  journal.write({
    kind: 'run.start',
    at: Date.now(),
    seed,
    minutes,
    procs,
    database: stores.database,
    prefix: stores.prefix,
  });
  await fleet.start();
  say(`  ${procs} processes up in ${secs(Date.now() - startedAt)}`);

  const driver = new ChaosDriver({ fleet, sink, stores, journal });
  await driver.createInitial(plan.initial);
  say(`  ${driver.timers} timers created; ${plan.actions.length} actions over ${minutes} min from now`);

  const t0 = Date.now();
  journal.write({ kind: 'chaos.start', at: t0 });
  const reporter = new Reporter(journal.events, t0);
  const progress = setInterval(() => say(`  ${reporter.rel(Date.now())}: ${reporter.actions()}`), 30_000);
  await driver.play(plan.actions, t0, () => interrupted);
  await sleep(t0 + plan.windowMs - Date.now());
  clearInterval(progress);
  journal.write({ kind: 'chaos.end', at: Date.now() });

  // Everything back: the receiver answering at once, MySQL, every process up and thawed.
  await driver.sinkOk();
  await fleet.restoreAll();
  // Changes still under way (a look after a failed one) are journaled when they end.
  await driver.drain(10_000);
  const checkUntil = Date.now();
  journal.write({ kind: 'restored', at: checkUntil });
  say(
    `  restored ${secs(checkUntil - t0 - plan.windowMs)} after the window; settling (up to ${secs(settleMs)})`,
  );

  const unsettled = await settle(journal, stores, sink, checkUntil);
  journal.write({ kind: 'settled', at: Date.now(), unsettled });
  const evidence: Evidence = {
    t0,
    checkUntil,
    calls: await sink.calls(),
    rows: [...driver.deletedRows, ...(await stores.rows())],
  };
  // Kept beside the journal: `bench/chaos/recheck.ts <dir>` judges them again.
  writeFileSync(join(out, 'evidence.json'), JSON.stringify(evidence));
  const result = check({
    journal: journal.events,
    calls: evidence.calls,
    rows: evidence.rows,
    settings: { ...DEFAULT_CHECK_SETTINGS, checkUntil },
  });
  for (const line of verdict(journal.events, t0, result)) say(line);
  say(
    `chaos seed=${seed} ${result.violations.length === 0 ? 'PASSED' : 'FAILED'} in ${secs(Date.now() - startedAt)} ` +
      `(settled ${secs(Date.now() - checkUntil)} after the restore); journal ${journal.file}`,
  );
  return result.violations.length === 0 ? 0 : 1;
}

/**
 * Waits until no run due before `before` is pending or running and no call is open, or
 * settleMs; journals the backlog each time it changes (how a backlog drained is a finding too).
 */
async function settle(
  journal: Journal,
  stores: ChaosStores,
  sink: ChaosSink,
  before: number,
): Promise<number> {
  const deadline = before + settleMs;
  let last = '';
  for (;;) {
    const unsettled = await stores.unsettled(before);
    const open = await sink.openCalls();
    if (`${unsettled}/${open}` !== last) journal.write({ kind: 'settling', at: Date.now(), unsettled, open });
    last = `${unsettled}/${open}`;
    if ((unsettled === 0 && open === 0) || Date.now() > deadline) return unsettled;
    await sleep(1000);
  }
}

const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    // A second Ctrl-C leaves at once (the exit hook still kills the processes).
    if (interrupted) process.exit(130);
    interrupted = true;
    say(`chaos: ${signal}: cleaning up (again to leave at once)`);
    void cleanUp().finally(() => process.exit(130));
  });
}

main()
  .catch((err: unknown) => {
    process.stderr.write(`chaos: the run could not complete: ${(err as Error).stack ?? String(err)}\n`);
    return 1;
  })
  .then(async (code) => {
    await cleanUp();
    process.exit(code);
  });
