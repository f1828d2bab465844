import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../../api/app.js';
import { call, createTestApp, timerBody } from '../../helpers/api.js';
import { createTestCore, createTestStores, type TestStores } from '../../helpers/stores.js';

/** /openapi.json is generated from the validation schemas; /docs renders it. */

let stores: TestStores;
let app: App;

beforeAll(async () => {
  stores = await createTestStores('openapi');
  app = createTestApp(createTestCore(stores));
});
afterAll(async () => {
  await stores.cleanup();
});

const NATIVE_ROUTES = [
  ['post', '/api/v1/timers'],
  ['get', '/api/v1/timers'],
  ['get', '/api/v1/timers/{id}'],
  ['patch', '/api/v1/timers/{id}'],
  ['delete', '/api/v1/timers/{id}'],
  ['post', '/api/v1/timers/{id}/enable'],
  ['post', '/api/v1/timers/{id}/disable'],
  ['get', '/api/v1/timers/{id}/tasks'],
  ['get', '/api/v1/timers/{id}/preview'],
  ['post', '/api/v1/timers/{id}/trigger'],
  ['post', '/api/v1/timers/{id}/tasks/{taskId}/retry'],
  ['get', '/api/v1/preview'],
  ['put', '/api/v1/apps/{app}/timers/{name}'],
  ['post', '/api/v1/apps/{app}/apply'],
  ['get', '/api/v1/pause'],
  ['post', '/api/v1/pause'],
  ['post', '/api/v1/resume'],
  ['get', '/healthz'],
  ['get', '/readyz'],
] as const;

describe('GET /openapi.json', () => {
  let doc: any;

  beforeAll(async () => {
    const res = await call(app, 'GET', '/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    doc = res.body;
  });

  it('is an OpenAPI 3.1 document', () => {
    expect(doc.openapi).toMatch(/^3\.1\./);
    expect(doc.info).toMatchObject({ title: expect.any(String), version: expect.any(String) });
  });

  it.each(NATIVE_ROUTES)('documents %s %s', (method, path) => {
    expect(doc.paths[path], `${path} missing`).toBeDefined();
    expect(doc.paths[path][method], `${method} ${path} missing`).toBeDefined();
  });

  it('gives every documented error of the API one shape: code, message and details of path and message', () => {
    const resolve = (schema: any): any =>
      schema?.$ref
        ? resolve(doc.components.schemas[schema.$ref.replace('#/components/schemas/', '')])
        : schema;
    const envelope = resolve({ $ref: '#/components/schemas/Error' });
    expect(envelope.required).toContain('error');
    const error = resolve(envelope.properties.error);
    expect(error.required).toEqual(expect.arrayContaining(['code', 'message']));
    expect(resolve(error.properties.code).type).toBe('string');
    expect(resolve(error.properties.message).type).toBe('string');
    const detail = resolve(resolve(error.properties.details).items);
    expect(Object.keys(detail.properties).sort()).toEqual(['message', 'path']);
    expect(detail.required).toEqual(expect.arrayContaining(['path', 'message']));

    const off: string[] = [];
    let errors = 0;
    // The API's routes (a health probe's 503 is its report, not an error).
    for (const [path, methods] of Object.entries<any>(doc.paths).filter(([p]) => p.startsWith('/api/'))) {
      for (const [method, op] of Object.entries<any>(methods)) {
        for (const [status, response] of Object.entries<any>(op.responses ?? {})) {
          if (!/^[45]/.test(status)) continue;
          errors++;
          const schema = response.content?.['application/json']?.schema;
          if (resolve(schema) !== envelope) off.push(`${method.toUpperCase()} ${path} ${status}`);
        }
      }
    }
    expect(errors).toBeGreaterThan(50);
    expect(off).toEqual([]);
  });

  it('describes the create body from the validation schema, with the error envelope', () => {
    const create = doc.paths['/api/v1/timers'].post;
    expect(create.requestBody.content['application/json'].schema).toBeDefined();
    expect(Object.keys(create.responses)).toEqual(expect.arrayContaining(['201', '400', '409', '413']));
    const schemas = doc.components.schemas;
    expect(schemas.CreateTimer.required).toEqual(expect.arrayContaining(['app', 'name', 'callback']));
    // cron or at, one of the two: neither is required on its own.
    expect(schemas.CreateTimer.required).not.toContain('cron');
    expect(Object.keys(schemas.CreateTimer.properties)).toEqual(
      expect.arrayContaining(['cron', 'at', 'startAt', 'endAt', 'maxRuns', 'overlapPolicy', 'notify']),
    );
    expect(schemas.CreateTimer.properties.overlapPolicy.enum).toEqual(['allow', 'skip', 'buffer_one']);
    expect(schemas.CreateTimer.properties.misfirePolicy.enum).toEqual(['fire_once', 'fire_all', 'skip']);
    expect(schemas.Timer).toBeDefined();
    expect(schemas.Error.properties.error).toBeDefined();
  });

  it("declares the optional Pause body, note and until, of a disable and of an app's pause", () => {
    expect(doc.components.schemas.Pause.properties).toEqual({
      note: expect.objectContaining({ type: expect.anything() }),
      until: expect.objectContaining({ type: 'string' }),
    });
    for (const path of ['/api/v1/timers/{id}/disable', '/api/v1/apps/{app}/pause']) {
      const body = doc.paths[path].post.requestBody;
      expect(body, path).toEqual({
        required: false,
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Pause' } } },
      });
    }
  });

  it("still takes a disable and an app's pause with no body, or an empty JSON one (the body is only documented)", async () => {
    const created = await call(
      app,
      'POST',
      '/api/v1/timers',
      timerBody({ app: 'bodiless', status: 'active' }),
    );
    expect(created.status).toBe(201);
    const disable = `/api/v1/timers/${created.body.id}/disable`;
    // call() says content-type: application/json, as the typed client and the docs' curl do.
    expect((await call(app, 'POST', disable)).body).toMatchObject({ status: 'inactive', pausedNote: null });
    expect((await call(app, 'POST', disable, '')).status).toBe(200);
    expect((await app.request(disable, { method: 'POST' })).status).toBe(200);
    expect((await call(app, 'POST', '/api/v1/apps/bodiless/pause')).body).toEqual({
      app: 'bodiless',
      changed: 0,
    });
  });

  it('declares the id path parameter of the per-timer routes', () => {
    const params = doc.paths['/api/v1/timers/{id}'].get.parameters;
    expect(params).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'id', in: 'path' })]));
  });
});

describe('GET /docs', () => {
  it('serves an HTML page whose script loads /openapi.json', async () => {
    const res = await app.request('/docs');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/text\/html/);
    const html = await res.text();
    expect(html).toContain('/docs/assets/swagger-ui-bundle.js');
    expect(html).toContain('/docs/assets/reference.js');
    expect(await (await app.request('/docs/assets/reference.js')).text()).toContain("url: '/openapi.json'");
  });

  it.each([
    ['swagger-ui-bundle.js', /javascript/],
    ['swagger-ui-standalone-preset.js', /javascript/],
    ['swagger-ui.css', /text\/css/],
  ])('serves its asset %s locally', async (file, type) => {
    const res = await app.request(`/docs/assets/${file}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(type);
    expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(1000);
  });

  it('answers 404 for an asset it does not serve', async () => {
    for (const file of ['package.json', '..%2F..%2Fpackage.json', 'index.html']) {
      const res = await app.request(`/docs/assets/${file}`);
      expect(res.status, file).toBe(404);
    }
  });
});
