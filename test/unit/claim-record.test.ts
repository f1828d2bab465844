import { describe, expect, it } from 'vitest';
import {
  type ClaimRecord,
  formatClaimRecord,
  isFinished,
  parseClaimRecord,
} from '../../src/storage/redis/claim-record.js';

describe('the claim record codec (the TS twin of lua/includes/claim-record.lua)', () => {
  it('reads back every state it writes, a holder holding "|" included', () => {
    const records: ClaimRecord[] = [
      { state: 'running', attempt: 1, untilMs: 1_795_342_503_000, holder: 'host:42:abc:7' },
      { state: 'backoff', attempt: 3, untilMs: 1_795_342_600_000, holder: 'a|b' },
      { state: 'succeeded', attempt: 2, untilMs: 0, holder: '' },
      { state: 'missed', attempt: 0, untilMs: 0, holder: 'h' },
    ];
    for (const r of records) expect(parseClaimRecord(formatClaimRecord(r))).toEqual(r);
  });

  it('writes the format the Lua scripts read: state|attempt|untilMs|holder', () => {
    expect(formatClaimRecord({ state: 'running', attempt: 2, untilMs: 5, holder: 'o' })).toBe(
      'running|2|5|o',
    );
  });

  it('reads no record from a missing key, an unknown state or a malformed value', () => {
    expect(parseClaimRecord(null)).toBeNull();
    expect(parseClaimRecord(undefined)).toBeNull();
    expect(parseClaimRecord('pending|1|0|o')).toBeNull();
    expect(parseClaimRecord('running|x|0|o')).toBeNull();
    expect(parseClaimRecord('running|1')).toBeNull();
  });

  it('counts only the final states as finished', () => {
    expect(isFinished('running')).toBe(false);
    expect(isFinished('backoff')).toBe(false);
    for (const s of ['succeeded', 'failed', 'skipped', 'missed'] as const) expect(isFinished(s)).toBe(true);
  });
});
