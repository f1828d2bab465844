import { describe, expect, it } from 'vitest';
import {
  auditEntry,
  changedFields,
  maskHeaders,
  maskUrl,
  timerChange,
  timerFields,
} from '../../src/domain/audit.js';
import { testTimer } from '../helpers/timers.js';

/** The audit log's pure rules: what is masked, what counts as changed. */

describe('masking credentials', () => {
  it('masks the values of headers named like credentials, and only those', () => {
    expect(
      maskHeaders({
        Authorization: 'Bearer x',
        'X-Api-Key': 'k',
        'x-auth-token': 't',
        Cookie: 'c=1',
        'X-Hub-Signature': 's',
        'Proxy-Secret': 'p',
        'content-type': 'application/json',
        'X-Trace-Id': 'abc',
      }),
    ).toEqual({
      Authorization: '***',
      'X-Api-Key': '***',
      'x-auth-token': '***',
      Cookie: '***',
      'X-Hub-Signature': '***',
      'Proxy-Secret': '***',
      'content-type': 'application/json',
      'X-Trace-Id': 'abc',
    });
  });

  it('masks query parameters of a URL named like credentials, leaving the rest as written', () => {
    expect(maskUrl('https://h.example/p?token=abc&page=2&api_key=k')).toBe(
      'https://h.example/p?token=***&page=2&api_key=***',
    );
    expect(maskUrl('https://h.example/p?page=2')).toBe('https://h.example/p?page=2');
    expect(maskUrl('not a url')).toBe('not a url');
  });
});

describe('what changed', () => {
  it('lists only the fields that differ, compared before masking', () => {
    const before = timerFields(
      testTimer({ callback: { ...testTimer().callback, headers: { authorization: 'a' } } }),
    );
    const after = timerFields(
      testTimer({
        cron: '0 * * * * *',
        callback: { ...testTimer().callback, headers: { authorization: 'b' } },
      }),
    );
    expect(changedFields(before, after)).toEqual({
      before: { cron: '* * * * * *', 'callback.headers': { authorization: '***' } },
      after: { cron: '0 * * * * *', 'callback.headers': { authorization: '***' } },
    });
    expect(changedFields(before, before)).toEqual({ before: {}, after: {} });
  });

  it('records a create whole and a delete whole, masked, with the author and batch', () => {
    const t = testTimer({
      labels: { team: 'x' },
      callback: { ...testTimer().callback, headers: { 'x-api-key': 'k' } },
    });
    const created = timerChange({ actor: 'billing:0123456789ab', batchId: 'apply-1' }, 'create', t, null, t);
    expect(created).toMatchObject({
      actor: 'billing:0123456789ab',
      batchId: 'apply-1',
      action: 'create',
      app: t.app,
      timerId: 42,
      before: null,
    });
    expect(created.after).toMatchObject({
      labels: { team: 'x' },
      'callback.headers': { 'x-api-key': '***' },
    });
    const deleted = timerChange({ actor: 'admin' }, 'delete', t, t, null);
    expect(deleted).toMatchObject({ batchId: null, after: null, before: { name: t.name } });
    const run = auditEntry({ actor: 'open' }, 'trigger', { app: t.app, timerId: 42 }, null, {
      taskId: '42_1',
    });
    expect(run).toMatchObject({
      action: 'trigger',
      timerId: 42,
      after: { taskId: '42_1' },
    });
  });
});
