import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadConfig, SETTINGS } from '../../src/config.js';
import { ROLES } from '../../src/setting-specs.js';
import { healthzUrl } from '../../workers/healthcheck.js';

/**
 * docker-compose.yml and the Dockerfile cannot run here (no Docker engine), so they are
 * read: the services (MySQL, Redis and xtimer's api, scheduler and worker) exist with
 * their replicas, healthchecks and start order, and every xtimer container's environment
 * is one the config accepts.
 */

const root = new URL('../../', import.meta.url);
const compose = parse(readFileSync(new URL('docker-compose.yml', root), 'utf8'), { merge: true }) as {
  services: Record<string, any>;
};
const dockerfile = readFileSync(new URL('Dockerfile', root), 'utf8');

const XTIMER_SERVICES = ['api', 'scheduler', 'worker'] as const;

/** `${NAME:-default}` / `${NAME}` as compose resolves them with nothing set in the shell. */
function interpolate(value: unknown): string {
  return String(value).replace(/\$\{(\w+)(?::?-([^}]*))?\}/g, (_, _name, fallback) => fallback ?? '');
}

function envOf(service: string): Record<string, string> {
  const env = compose.services[service].environment;
  // Compose allows a list of NAME=value as well as a map.
  const entries: Array<[string, unknown]> = Array.isArray(env)
    ? env.map((line: string) => {
        const at = line.indexOf('=');
        return [line.slice(0, at), line.slice(at + 1)];
      })
    : Object.entries(env ?? {});
  return Object.fromEntries(entries.map(([k, v]) => [k, interpolate(v)]));
}

function healthcheck(service: string): string {
  const test = compose.services[service].healthcheck?.test;
  return Array.isArray(test) ? test.join(' ') : String(test ?? '');
}

describe('docker-compose.yml', () => {
  it('has MySQL 8, Redis 7 and the three xtimer services', () => {
    expect(Object.keys(compose.services)).toEqual(
      expect.arrayContaining(['mysql', 'redis', 'api', 'scheduler', 'worker']),
    );
    expect(compose.services.mysql.image).toMatch(/^mysql:8/);
    expect(compose.services.redis.image).toMatch(/^redis:7/);
  });

  it('runs two schedulers and three workers', () => {
    expect(compose.services.scheduler.deploy.replicas).toBe(2);
    expect(compose.services.worker.deploy.replicas).toBe(3);
  });

  it("health-checks MySQL with mysqladmin ping, Redis with redis-cli ping, xtimer with the image's check", () => {
    expect(healthcheck('mysql')).toContain('mysqladmin ping');
    expect(healthcheck('redis')).toContain('redis-cli ping');
    for (const service of XTIMER_SERVICES)
      expect(healthcheck(service), service).toBe('CMD node dist/workers/healthcheck.js');
  });

  it.each(XTIMER_SERVICES)('gives %s an HTTP port the health check asks for /healthz', (service) => {
    const config = loadConfig(envOf(service));
    const port = service === 'api' ? config.port : config.metricsPort;
    expect(port).toBeDefined();
    expect(healthzUrl(config)).toBe(`http://127.0.0.1:${port}/healthz`);
  });

  it.each(XTIMER_SERVICES)('starts %s from the xtimer image once MySQL and Redis are healthy', (service) => {
    const s = compose.services[service];
    expect(s.build).toBeDefined();
    expect(s.depends_on).toEqual({
      mysql: { condition: 'service_healthy' },
      redis: { condition: 'service_healthy' },
    });
  });

  it.each(XTIMER_SERVICES)('gives %s only settings src/config.ts knows, and values it accepts', (service) => {
    const env = envOf(service);
    const unknown = Object.keys(env).filter((name) => !(SETTINGS as readonly string[]).includes(name));
    expect(unknown).toEqual([]);
    for (const needed of ['MYSQL_URL', 'REDIS_URL', 'XTIMER_ROLES']) expect(env[needed]).toBeTruthy();
    expect(() => loadConfig(env)).not.toThrow();
  });

  it('splits the roles: api alone, scheduler with migrator, trigger with executor; together all of them', () => {
    const roles = Object.fromEntries(XTIMER_SERVICES.map((s) => [s, loadConfig(envOf(s)).roles]));
    expect(roles).toEqual({
      api: ['api'],
      scheduler: ['scheduler', 'migrator'],
      worker: ['trigger', 'executor'],
    });
    expect(new Set(Object.values(roles).flat())).toEqual(new Set(ROLES));
  });

  it('has the api listen on all interfaces at the port it publishes', () => {
    const config = loadConfig(envOf('api'));
    expect(config.host).toBe('0.0.0.0');
    expect(compose.services.api.ports).toContain(`${config.port}:${config.port}`);
  });

  it('keeps the SSRF guard on in every xtimer service, and names PUBLIC_HOSTS for the api', () => {
    for (const service of XTIMER_SERVICES) {
      expect(loadConfig(envOf(service)).callbackBlockPrivate, service).toBe(true);
      expect(envOf(service)).toHaveProperty('CALLBACK_BLOCK_PRIVATE', 'true');
    }
    expect(envOf('api')).toHaveProperty('PUBLIC_HOSTS');
  });

  it('points every xtimer service at the compose MySQL and Redis, under one prefix', () => {
    const configs = XTIMER_SERVICES.map((s) => loadConfig(envOf(s)));
    for (const c of configs) {
      expect(new URL(c.mysqlUrl).host).toBe('mysql:3306');
      expect(new URL(c.redisUrl).host).toBe('redis:6379');
    }
    expect(new Set(configs.map((c) => c.prefix)).size).toBe(1);
    expect(new Set(configs.map((c) => c.mysqlUrl)).size).toBe(1);
  });
});

describe('Dockerfile', () => {
  it('builds in one stage and runs the compiled entrypoint from production dependencies in another', () => {
    const stages = dockerfile.match(/^FROM .+$/gm) ?? [];
    expect(stages.length).toBeGreaterThanOrEqual(2);
    expect(dockerfile).toMatch(/RUN npm ci\b/);
    expect(dockerfile).toMatch(/RUN npm run build/);
    expect(dockerfile).toMatch(/RUN npm ci --omit=dev/);
    expect(dockerfile).toMatch(/COPY --from=build \/app\/dist/);
    expect(dockerfile).toMatch(/CMD \["node", .*"dist\/workers\/main\.js"\]/);
  });

  it('runs on a Node LTS that is still supported (22 or 24), as the unprivileged node user', () => {
    const images = [...dockerfile.matchAll(/^ARG NODE_IMAGE=(.+)$/gm)].map((m) => m[1]);
    expect(images).toHaveLength(1);
    expect(images[0]).toMatch(/^node:(22|24)-/);
    const stages = dockerfile.match(/^FROM .+$/gm) ?? [];
    expect(stages).toHaveLength(2);
    for (const stage of stages) expect(stage).toMatch(/^FROM \$\{NODE_IMAGE\} AS (build|runtime)$/);
    const runtime = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
    expect(runtime).toMatch(/^USER node$/m);
    expect(runtime.indexOf('USER node')).toBeLessThan(runtime.indexOf('CMD ['));
  });

  it("checks health with the compiled health check, which finds every role's port", () => {
    expect(dockerfile).toMatch(/^HEALTHCHECK .*\\\n\s+CMD \["node", "dist\/workers\/healthcheck\.js"\]$/m);
    const env = Object.fromEntries(
      [...dockerfile.matchAll(/^ENV (\w+)=(\S+)$/gm)].map((m) => [m[1]!, m[2]!]),
    );
    for (const roles of ['api', 'scheduler,migrator', 'trigger,executor', ''])
      expect(healthzUrl(loadConfig({ ...env, XTIMER_ROLES: roles })), roles).toMatch(
        /^http:\/\/127\.0\.0\.1:\d+\/healthz$/,
      );
  });

  it('sets only settings src/config.ts knows', () => {
    const names = [...dockerfile.matchAll(/^ENV (\w+)=/gm)].map((m) => m[1]!);
    expect(names.filter((n) => n !== 'NODE_ENV' && !(SETTINGS as readonly string[]).includes(n))).toEqual([]);
  });
});
