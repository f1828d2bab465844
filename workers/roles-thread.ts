/**
 * The roles thread (API_THREAD=own): the roles other than the api, composed here as in a
 * process of their own. The main thread asks it for its metrics, to stop, or to abandon.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { Config } from '../src/config.js';
import { BEAT_EVERY_MS } from '../src/observability/liveness.js';
import { Foreground } from '../src/services/firing/admission/foreground.js';
import { compose } from './compose.js';
import type { ThreadAsk } from './start-roles-thread.js';

const port = parentPort;
if (port === null) throw new Error('workers/roles-thread.ts runs as a worker thread of workers/main.ts');
const data = workerData as { config: Config; foreground: SharedArrayBuffer };
// The api's requests in flight, as the main thread counts them: the executor yields to them.
const foreground = new Foreground({ shared: data.foreground });
const { core, shutdown } = await compose(data.config, { thread: 'roles', foreground });
process.on('unhandledRejection', (reason) => {
  core.logger.error({ err: reason }, 'unhandled rejection (continuing)');
});
port.on('message', async ({ id, ask, reason, withinMs }: ThreadAsk) => {
  const value =
    ask === 'metrics'
      ? await core.metrics.snapshot({ processWide: false })
      : ask === 'stop'
        ? await shutdown.run(reason)
        : await shutdown.keep(withinMs);
  port.postMessage({ id, value });
});
port.postMessage({ started: true });
// The main thread's /healthz fails when these stop: a wedged loop here would not show there.
setInterval(() => port.postMessage({ beat: true }), BEAT_EVERY_MS).unref();
