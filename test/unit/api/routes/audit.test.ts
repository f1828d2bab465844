import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  auditEntry,
  changedFields,
  maskBody,
  maskHeaders,
  maskUrl,
  timerChange,
  timerFields,
} from '../../../../src/domain/audit.js';
import { testTimer } from '../../../helpers/timers.js';

/** The audit log's pure rules: what is masked, what counts as changed. */

describe('masking credentials', () => {
  it('keeps the values of a short list of headers, and masks every other', () => {
    expect(
      maskHeaders({
        Authorization: 'Bearer x',
        'X-Api-Key': 'k',
        'Ocp-Apim-Subscription-Key': '0123456789abcdef',
        'X-Functions-Key': 'fn-key',
        'X-Goog-Channel-Token': 'g',
        'X-Trace-Id': 'abc',
        'content-type': 'application/json',
        Accept: 'application/json',
        'User-Agent': 'billing/1.0',
      }),
    ).toEqual({
      Authorization: '***',
      'X-Api-Key': '***',
      'Ocp-Apim-Subscription-Key': '***',
      'X-Functions-Key': '***',
      'X-Goog-Channel-Token': '***',
      'X-Trace-Id': '***',
      'content-type': 'application/json',
      Accept: 'application/json',
      'User-Agent': 'billing/1.0',
    });
  });

  it('masks every query value, and keeps a short path without random-looking segments', () => {
    expect(maskUrl('https://h.example/hooks/run?page=2&sig=abc&code=xyz#frag')).toBe(
      'https://h.example/hooks/run?page=***&sig=***&code=***#***',
    );
    expect(maskUrl('https://h.example:8443/v1/invoices/run')).toBe('https://h.example:8443/v1/invoices/run');
    expect(maskUrl('https://h.example/p?Zm9vYmFyYmF6cXV1eDEyMzQ')).toBe('https://h.example/p?***=***');
    expect(maskUrl('not a url')).toBe('***');
  });

  it.each([
    // Slack: a 24-character mixed token.
    'https://hooks.slack.example/services/T0AAAAAAA/B0BBBBBBB/ZX9ab3Cd5Ef7Gh9Ij1Kl3Mn5',
    // Discord: a long path.
    'https://discord.example/api/webhooks/123456789012345678/abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijkl',
    // Telegram: the bot token in the path.
    'https://api.telegram.example/bot123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw/sendMessage',
    // A key as a hex segment, and a UUID.
    'https://h.example/notify/9f86d081884c7d659a2feaa0c55ad015',
    'https://h.example/hooks/3fa85f64-5717-4562-b3fc-2c963f66afa6',
    // A path over the length kept.
    `https://h.example/${'segment/'.repeat(9)}`,
  ])('masks the whole path of %s', (url) => {
    expect(maskUrl(url)).toBe(`${new URL(url).origin}/***`);
  });

  it('keeps a body as its size and a digest, never its text', () => {
    const body = '{"username":"svc","password":"hunter2"}';
    expect(maskBody(body)).toEqual({
      bytes: body.length,
      sha256: createHash('sha256').update(body).digest('hex'),
    });
    expect(maskBody(`${body} `)).not.toEqual(maskBody(body));
    expect(maskBody('é')).toMatchObject({ bytes: 2 });
    expect(maskBody(null)).toBeNull();
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
