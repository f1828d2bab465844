/**
 * The container health check (Dockerfile HEALTHCHECK, docker-compose): asks this
 * container's xtimer process for /healthz and exits 0 when it answers 200, 1 otherwise.
 * It reads the same settings as the process it checks, so one command fits every role:
 * the api port for a process with the api role, METRICS_PORT for the others.
 *
 *   node dist/workers/healthcheck.js
 */
import { pathToFileURL } from 'node:url';
import { type Config, loadProcessConfig } from '../src/config.js';

const TIMEOUT_MS = 3000;

/** Where the process configured by `config` answers /healthz; null when it serves no HTTP. */
export function healthzUrl(config: Pick<Config, 'roles' | 'host' | 'port' | 'metricsPort'>): string | null {
  const port = config.roles.includes('api') ? config.port : config.metricsPort;
  if (port === undefined) return null;
  // A wildcard address is reached over loopback from inside the container.
  const host =
    config.host === '0.0.0.0'
      ? '127.0.0.1'
      : config.host === '::'
        ? '::1'
        : config.host.replace(/^\[|\]$/g, '');
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}/healthz`;
}

async function check(): Promise<number> {
  const url = healthzUrl(loadProcessConfig());
  if (url === null) {
    console.error('no HTTP port to check: set METRICS_PORT on processes without the api role');
    return 1;
  }
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(TIMEOUT_MS) });
    if (res.ok) return 0;
    console.error(`${url} answered ${res.status}`);
  } catch (err) {
    console.error(`${url}: ${(err as Error).message}`);
  }
  return 1;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  check().then((code) => process.exit(code));
}
