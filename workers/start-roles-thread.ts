import { Worker } from 'node:worker_threads';
import type { Config } from '../src/config.js';
import type { Core } from '../src/core.js';
import { withDeadline } from '../src/lib/with-deadline.js';
import type { MetricsSnapshot } from '../src/observability/metrics.js';
import type { Abandoned } from '../src/shutdown.js';

/** What the main thread asks of the roles thread. */
export interface ThreadAsk {
  id: number;
  ask: 'metrics' | 'stop' | 'abandon';
  reason: string;
  withinMs: number;
}

/** Left to the thread's own steps after its calls in flight, within the process's grace. */
const CLOSE_MARGIN_MS = 1000;
/** A second signal gives the thread this long to keep what it can (the process's own wait is 2 s). */
const ABANDON_WITHIN_MS = 1500;
const METRICS_WITHIN_MS = 5000;

/**
 * Starts the roles other than the api in a worker thread (workers/roles-thread.ts) and
 * resolves once they run: its figures join this process's /metrics, its beats /healthz,
 * and it stops or abandons when asked. A thread that ends on its own takes the process with it.
 */
export async function startRolesThread(
  config: Config,
  core: Core,
): Promise<{ close(): Promise<void>; abandon(): Promise<Record<string, Abandoned>> }> {
  const shutdownGraceMs = Math.max(CLOSE_MARGIN_MS, config.shutdownGraceMs - CLOSE_MARGIN_MS);
  const worker = new Worker(threadEntry(), {
    workerData: { config: { ...config, shutdownGraceMs }, foreground: core.foreground.shared },
  });
  const replies = new Map<number, (value: unknown) => void>();
  let asked = 0;
  let leaving = false;
  const ask = <T>(what: ThreadAsk['ask'], reason = '', withinMs = 0): Promise<T> =>
    new Promise<T>((resolve) => {
      const id = ++asked;
      replies.set(id, resolve as (value: unknown) => void);
      worker.postMessage({ id, ask: what, reason, withinMs } satisfies ThreadAsk);
    });
  let started = false;
  await new Promise<void>((resolve, reject) => {
    worker.on('message', (m: { started?: true; beat?: true; id?: number; value?: unknown }) => {
      if (m.beat) core.liveness.beat('roles');
      else if (m.started) {
        started = true;
        resolve();
      } else if (m.id !== undefined) {
        replies.get(m.id)?.(m.value);
        replies.delete(m.id);
      }
    });
    worker.on('error', (err) => {
      if (started) core.logger.error({ err }, 'the roles thread failed');
      else reject(err);
    });
    worker.once('exit', (code) => {
      if (!started) reject(new Error(`the roles thread exited with ${code} while starting`));
      else if (!leaving) {
        core.logger.fatal({ code }, 'the roles thread ended: exiting so that the process is restarted whole');
        process.exit(1);
      }
    });
  });
  core.metrics.addSource(() => withDeadline(ask<MetricsSnapshot>('metrics'), METRICS_WITHIN_MS));
  core.liveness.watch('roles');
  return {
    close: () => {
      leaving = true;
      return ask<void>('stop', 'the process is stopping');
    },
    abandon: () => {
      leaving = true;
      return ask<Record<string, Abandoned>>('abandon', 'second signal', ABANDON_WITHIN_MS);
    },
  };
}

/** workers/roles-thread, built; or from the sources, with tsx, whose loader a thread does not inherit. */
function threadEntry(): URL {
  const here = import.meta.url;
  if (here.endsWith('.js')) return new URL('./roles-thread.js', here);
  const tsx = JSON.stringify(import.meta.resolve('tsx/esm/api'));
  const entry = JSON.stringify(new URL('./roles-thread.ts', here).href);
  const code = `import { register } from ${tsx}; register(); await import(${entry});`;
  return new URL(`data:text/javascript,${encodeURIComponent(code)}`);
}
