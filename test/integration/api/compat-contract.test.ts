import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import type { App } from '../../../api/app.js';
import { call, createTestApp } from '../../helpers/api.js';
import {
  CodeMsg,
  CreateTimerResp,
  decode,
  decodeError,
  GetTasksResp,
  GetTimerResp,
  GetTimersResp,
  GoTaskStatus,
  GoTimerStatus,
  Task,
  Timer,
} from '../../helpers/go-xtimer.js';
import { createTestCore, createTestStores, recordRun, type TestStores } from '../../helpers/stores.js';

/**
 * The contract with clients of the Go xTimer: every answer of every compatible route,
 * success and error, decodes into the original's structs (test/helpers/go-xtimer.ts),
 * and a client written only from those structs gets through a timer's whole life.
 */

let stores: TestStores;
let app: App;
const FIXED_NOW = Date.UTC(2030, 0, 1, 10, 17, 30);

beforeAll(async () => {
  stores = await createTestStores('compatcontract');
  app = createTestApp(createTestCore(stores, () => FIXED_NOW));
});
afterAll(async () => {
  await stores.cleanup();
});

type GoTimer = z.output<typeof Timer>;

/** encoding/json over vo.Timer: `omitempty` drops zero values; status has no omitempty. */
function marshalTimer(t: Partial<GoTimer> & { status?: number }): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries({ ...t, status: t.status ?? 0 })) {
    if (k === 'status' || (v !== undefined && v !== '' && v !== 0)) out[k] = v;
  }
  return out;
}

/** A code != 0 from the original: what a Go client turns into an error. */
class CodeMsgError extends Error {}

/**
 * A client written only from the original's routes (app/webserver/app.go) and structs:
 * HTTP 200 or a failure, then `code != 0` is an error carrying `msg`.
 */
class GoClient {
  private async send<T extends z.ZodObject>(struct: T, method: string, path: string, body?: unknown) {
    const res = await call(app, method, path, body);
    if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${JSON.stringify(res.body)}`);
    // An error answer carries CodeMsg only: Go leaves the struct's other fields at their zero values.
    if (res.body?.code !== 0) {
      throw new CodeMsgError(decodeError(struct, res.body).msg);
    }
    return decode(struct, res.body) as z.output<T>;
  }
  createTimer(t: Partial<GoTimer>) {
    return this.send(CreateTimerResp, 'POST', '/api/timer/v1/def', marshalTimer(t));
  }
  getTimer(appName: string, id: number) {
    return this.send(GetTimerResp, 'GET', `/api/timer/v1/def?app=${appName}&id=${id}`);
  }
  updateTimer(t: Partial<GoTimer> & { status?: number }) {
    return this.send(CodeMsg, 'PATCH', '/api/timer/v1/def', marshalTimer(t));
  }
  deleteTimer(appName: string, id: number) {
    return this.send(CodeMsg, 'DELETE', '/api/timer/v1/def', { app: appName, id });
  }
  getAppTimers(appName: string, pageIndex: number, pageSize: number) {
    const q = new URLSearchParams({ app: appName, pageIndex: `${pageIndex}`, pageSize: `${pageSize}` });
    return this.send(GetTimersResp, 'GET', `/api/timer/v1/defs?${q}`);
  }
  getTimersByName(appName: string, fuzzyName: string, pageIndex: number, pageSize: number) {
    const q = new URLSearchParams({
      app: appName,
      fuzzyName,
      pageIndex: `${pageIndex}`,
      pageSize: `${pageSize}`,
    });
    return this.send(GetTimersResp, 'GET', `/api/timer/v1/defsByName?${q}`);
  }
  enableTimer(appName: string, id: number) {
    return this.send(CodeMsg, 'POST', '/api/timer/v1/enable', { app: appName, id });
  }
  unableTimer(appName: string, id: number) {
    return this.send(CodeMsg, 'POST', '/api/timer/v1/unable', { app: appName, id });
  }
  getTasks(timerID: number, pageIndex: number, pageSize: number) {
    return this.send(
      GetTasksResp,
      'GET',
      `/api/task/v1/records?timerID=${timerID}&pageIndex=${pageIndex}&pageSize=${pageSize}`,
    );
  }
}

describe('the structs', () => {
  it('refuse what a Go client cannot decode: header lists, numbers as strings, an error object, unknown keys', () => {
    const timer = {
      id: 1,
      app: 'a',
      name: 'n',
      status: 1,
      cron: '* * * * *',
      notifyHTTPParam: { method: 'POST', url: 'http://x/' },
    };
    expect(() => decode(Timer, timer)).not.toThrow();
    const broken = [
      { ...timer, notifyHTTPParam: { method: 'POST', url: 'http://x/', header: { a: ['1'] } } },
      { ...timer, id: '1' },
      { ...timer, status: 'inactive' },
      { ...timer, creator: '' },
    ];
    for (const body of broken) expect(() => decode(Timer, body), JSON.stringify(body)).toThrow();
    expect(() => decode(CodeMsg, { code: 0, msg: '', err: null })).not.toThrow();
    for (const body of [
      { code: 0, msg: '', err: {} },
      { code: 404, msg: 'x' },
      { code: 0, msg: 'ok', err: null, extra: 1 },
    ]) {
      expect(() => decode(CodeMsg, body), JSON.stringify(body)).toThrow();
    }
    const task = {
      id: 1,
      app: 'a',
      timerID: 1,
      output: '',
      runTimer: '2030-01-01T10:00:00.000Z',
      costTime: 0,
      status: 2,
    };
    expect(() => decode(Task, task)).not.toThrow();
    for (const body of [
      { ...task, runTimer: 1893492000000 },
      { ...task, costTime: 1.5 },
      { ...task, status: 6 },
    ]) {
      expect(() => decode(Task, body), JSON.stringify(body)).toThrow();
    }
  });
});

describe('every compatible route decodes into the original’s structs', () => {
  const APP = 'contract';
  const RUN_AT = Date.UTC(2030, 0, 1, 10, 0);
  /** One timer per outcome of its last run, with the Go status it must read. */
  const OUTCOMES = [
    {
      name: 'succeeded',
      run: { status: 'succeeded', output: '{"ok":true}', durationMs: 12 },
      goStatus: GoTaskStatus.Successed,
      output: '{"ok":true}',
      costTime: 12,
    },
    {
      name: 'failed',
      run: { status: 'failed', error: 'HTTP 500', durationMs: 40 },
      goStatus: GoTaskStatus.Failed,
      output: 'HTTP 500',
      costTime: 40,
    },
    { name: 'skipped', run: { status: 'skipped' }, goStatus: GoTaskStatus.Skipped, output: '', costTime: 0 },
  ] as const;
  const ids = new Map<string, number>();

  beforeAll(async () => {
    for (const o of OUTCOMES) {
      const res = await call(app, 'POST', '/api/timer/v1/def', {
        app: APP,
        name: o.name,
        cron: '*/5 * * * * 2031',
        notifyHTTPParam: { method: 'POST', url: 'http://127.0.0.1:9/hook', header: { 'X-Req': 'a' } },
      });
      const id = decode(CreateTimerResp, res.body).id;
      ids.set(o.name, id);
      await recordRun(stores.database, { timerId: id, app: APP, runAt: RUN_AT, ...o.run });
    }
  });

  it.each(OUTCOMES)('reads the $name timer and its run through vo.Timer and vo.Task', async (o) => {
    const id = ids.get(o.name)!;
    const got = decode(GetTimerResp, (await call(app, 'GET', `/api/timer/v1/def?app=${APP}&id=${id}`)).body);
    expect(got.data).toEqual({
      id,
      app: APP,
      name: o.name,
      status: GoTimerStatus.Unabled,
      cron: '*/5 * * * * 2031',
      notifyHTTPParam: { method: 'POST', url: 'http://127.0.0.1:9/hook', header: { 'X-Req': 'a' } },
    });

    const tasks = decode(GetTasksResp, (await call(app, 'GET', `/api/task/v1/records?timerID=${id}`)).body);
    expect(tasks).toMatchObject({ code: 0, total: 1 });
    expect(tasks.data).toEqual([
      {
        id: expect.any(Number),
        app: APP,
        timerID: id,
        output: o.output,
        runTimer: '2030-01-01T10:00:00.000Z',
        costTime: o.costTime,
        status: o.goStatus,
      },
    ]);
  });

  it('decodes each route’s success answer into its response struct', async () => {
    const id = ids.get('succeeded')!;
    const answers: Array<[z.ZodObject, string, string, unknown?]> = [
      [GetTimersResp, 'GET', `/api/timer/v1/defs?app=${APP}&pageIndex=1&pageSize=10`],
      [GetTimersResp, 'GET', `/api/timer/v1/defsByName?app=${APP}&fuzzyName=ed&pageIndex=1&pageSize=10`],
      [GetTimerResp, 'GET', `/api/timer/v1/def?app=${APP}&id=${id}`],
      [CodeMsg, 'PATCH', '/api/timer/v1/def', { app: APP, id, name: 'succeeded', status: 0 }],
      [CodeMsg, 'POST', '/api/timer/v1/enable', { app: APP, id }],
      [CodeMsg, 'POST', '/api/timer/v1/unable', { app: APP, id }],
      [GetTasksResp, 'GET', `/api/task/v1/records?timerID=${id}&pageIndex=1&pageSize=10`],
      [
        CreateTimerResp,
        'POST',
        '/api/timer/v1/def',
        {
          app: APP,
          name: 'to-delete',
          cron: '@daily',
          status: 0,
          notifyHTTPParam: { method: 'GET', url: 'http://127.0.0.1:9/x' },
        },
      ],
    ];
    for (const [struct, method, path, body] of answers) {
      const res = await call(app, method, path, body);
      expect(res.status, `${method} ${path}`).toBe(200);
      expect(decode(struct, res.body).code, `${method} ${path}`).toBe(0);
    }
    const lists = decode(GetTimersResp, (await call(app, 'GET', `/api/timer/v1/defs?app=${APP}`)).body);
    expect(lists.total).toBe(4);
    const created = lists.data!.find((t) => t.name === 'to-delete')!;
    const deleted = await call(app, 'DELETE', '/api/timer/v1/def', { app: APP, id: created.id });
    expect(decode(CodeMsg, deleted.body)).toEqual({ code: 0, msg: '', err: null });
  });

  it('decodes each route’s error answers: 400 when the request does not bind, 200 otherwise, code -1', async () => {
    const unknown = 99_999_999;
    const errors: Array<[z.ZodObject, number, string, string, unknown?]> = [
      [CreateTimerResp, 400, 'POST', '/api/timer/v1/def', { app: APP, name: 'x', cron: '* * * * *' }],
      [CreateTimerResp, 400, 'POST', '/api/timer/v1/def', '{"app":'],
      [
        CreateTimerResp,
        200,
        'POST',
        '/api/timer/v1/def',
        {
          app: APP,
          name: 'succeeded',
          cron: '* * * * *',
          notifyHTTPParam: { method: 'POST', url: 'http://127.0.0.1:9/x' },
        },
      ],
      [
        CreateTimerResp,
        200,
        'POST',
        '/api/timer/v1/def',
        {
          app: APP,
          name: 'y',
          cron: '@reboot',
          notifyHTTPParam: { method: 'POST', url: 'http://127.0.0.1:9/x' },
        },
      ],
      [GetTimerResp, 400, 'GET', '/api/timer/v1/def?app=contract'],
      [GetTimerResp, 200, 'GET', `/api/timer/v1/def?app=${APP}&id=${unknown}`],
      [CodeMsg, 400, 'PATCH', '/api/timer/v1/def', { app: APP, name: 'no-id' }],
      [CodeMsg, 200, 'PATCH', '/api/timer/v1/def', { app: APP, id: unknown, status: 2 }],
      [CodeMsg, 400, 'DELETE', '/api/timer/v1/def', { app: APP }],
      [CodeMsg, 200, 'DELETE', '/api/timer/v1/def', { app: APP, id: unknown }],
      [GetTimersResp, 400, 'GET', '/api/timer/v1/defs?pageIndex=1'],
      [GetTimersResp, 400, 'GET', `/api/timer/v1/defs?app=${APP}&pageSize=x`],
      [GetTimersResp, 400, 'GET', `/api/timer/v1/defsByName?app=${APP}`],
      [CodeMsg, 400, 'POST', '/api/timer/v1/enable', { app: APP, id: 'one' }],
      [CodeMsg, 200, 'POST', '/api/timer/v1/enable', { app: APP, id: unknown }],
      [CodeMsg, 400, 'POST', '/api/timer/v1/unable', { app: APP }],
      [CodeMsg, 200, 'POST', '/api/timer/v1/unable', { app: APP, id: unknown }],
      [GetTasksResp, 400, 'GET', '/api/task/v1/records?pageIndex=1'],
      [GetTasksResp, 200, 'GET', `/api/task/v1/records?timerID=${unknown}`],
    ];
    for (const [struct, status, method, path, body] of errors) {
      const res = await call(app, method, path, body);
      expect(res.status, `${method} ${path} ${JSON.stringify(body)}`).toBe(status);
      expect(decodeError(struct, res.body).code).toBe(-1);
    }
  });
});

describe('a client written only from the original’s structs', () => {
  it('creates, reads, lists, searches, updates, enables, disables, deletes and reads records', async () => {
    const go = new GoClient();
    const APP = 'go-client';
    const param = {
      method: 'POST',
      url: 'http://127.0.0.1:9/report',
      header: { 'Content-Type': 'application/json' },
      body: '{"r":1}',
    };

    // Create three; the Go zero status (0) leaves each inactive.
    const report = (
      await go.createTimer({
        app: APP,
        name: 'nightly-report',
        cron: '30 2 * * * 2031',
        notifyHTTPParam: param,
      })
    ).id;
    const cleanup = (
      await go.createTimer({ app: APP, name: 'Nightly-Cleanup', cron: '@daily', notifyHTTPParam: param })
    ).id;
    const sync = (
      await go.createTimer({ app: APP, name: 'hourly-sync', cron: '0 * * * *', notifyHTTPParam: param })
    ).id;

    // Read: the DTO it sent, status Unabled.
    expect((await go.getTimer(APP, report)).data).toEqual({
      id: report,
      app: APP,
      name: 'nightly-report',
      status: GoTimerStatus.Unabled,
      cron: '30 2 * * * 2031',
      notifyHTTPParam: param,
    });

    // List, newest first, and search by fuzzy name.
    const all = await go.getAppTimers(APP, 1, 2);
    expect(all.total).toBe(3);
    expect(all.data!.map((t) => t.id)).toEqual([sync, cleanup]);
    expect((await go.getAppTimers(APP, 2, 2)).data!.map((t) => t.id)).toEqual([report]);
    const nightly = await go.getTimersByName(APP, 'nightly', 1, 10);
    expect(nightly.total).toBe(2);
    expect(nightly.data!.map((t) => t.name)).toEqual(['Nightly-Cleanup', 'nightly-report']);

    // Update: a 7-field cron (seconds first, year last), a new name, and enable it at once.
    await go.updateTimer({
      id: report,
      app: APP,
      name: 'nightly-report-v2',
      cron: '0 0 12 * * ? 2031',
      status: GoTimerStatus.Enabled,
      notifyHTTPParam: param,
    });
    const updated = (await go.getTimer(APP, report)).data!;
    expect(updated).toMatchObject({
      name: 'nightly-report-v2',
      cron: '0 0 12 * * ? 2031',
      status: GoTimerStatus.Enabled,
    });
    const preview = await call(app, 'GET', `/api/v1/timers/${report}/preview?count=1`);
    expect(preview.body.items).toEqual(['2031-01-01T12:00:00.000+00:00']);

    // Disable and enable again.
    await go.unableTimer(APP, report);
    expect((await go.getTimer(APP, report)).data!.status).toBe(GoTimerStatus.Unabled);
    await go.enableTimer(APP, report);
    expect((await go.getTimer(APP, report)).data!.status).toBe(GoTimerStatus.Enabled);

    // Records of its runs, each status read as the original's enum means it.
    const run = { timerId: sync, app: APP };
    await recordRun(stores.database, {
      ...run,
      runAt: Date.UTC(2030, 0, 1, 9, 0),
      status: 'succeeded',
      output: '{"ok":1}',
      durationMs: 7,
    });
    await recordRun(stores.database, {
      ...run,
      runAt: Date.UTC(2030, 0, 1, 10, 0),
      status: 'failed',
      error: 'timeout after 5000 ms',
      durationMs: 5000,
    });
    const records = await go.getTasks(sync, 1, 10);
    expect(records.total).toBe(2);
    expect(records.data!.map((t) => [t.runTimer, t.status, t.costTime, t.output])).toEqual([
      ['2030-01-01T10:00:00.000Z', GoTaskStatus.Failed, 5000, 'timeout after 5000 ms'],
      ['2030-01-01T09:00:00.000Z', GoTaskStatus.Successed, 7, '{"ok":1}'],
    ]);

    // Delete; then the timer is an error a Go client reads from msg.
    await go.deleteTimer(APP, report);
    await expect(go.getTimer(APP, report)).rejects.toThrow(CodeMsgError);
    await expect(go.getTimer(APP, report)).rejects.toThrow(/^TIMER_NOT_FOUND: /);
    expect((await go.getAppTimers(APP, 1, 10)).total).toBe(2);
  });
});
