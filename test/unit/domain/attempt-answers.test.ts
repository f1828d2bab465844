import { describe, expect, it } from 'vitest';
import {
  ANSWER_LIMITS,
  type AttemptAnswer,
  keptAnswers,
  withEarlier,
} from '../../../src/domain/attempt-answers.js';

const answer = (attempt: number): AttemptAnswer => ({
  attempt,
  sentAt: 1000 * attempt,
  httpStatus: 503,
  output: 'busy',
  bodyBytes: 4,
  durationMs: 5,
  error: 'HTTP 503',
  headers: { 'retry-after': '1' },
});

describe('the earlier answers a retry carries', () => {
  it('keeps the latest few, oldest first', () => {
    let earlier: AttemptAnswer[] | undefined;
    for (let n = 1; n <= 6; n++) earlier = withEarlier(earlier, answer(n));
    expect(earlier).toHaveLength(ANSWER_LIMITS.earlierMax);
    expect(earlier?.map((a) => a.attempt)).toEqual([4, 5, 6]);
  });
});

describe("a run's answers kept", () => {
  const row = {
    attempts: 2,
    httpStatus: 200,
    output: 'done',
    error: null,
    firedAt: 5000,
    durationMs: 7,
  };

  it("are the log's earlier answers, then the one its columns hold, with the log's headers and size", () => {
    const kept = keptAnswers({
      ...row,
      answers: { attempt: 2, headers: { 'x-id': '9' }, bodyBytes: 4, earlier: [answer(1)] },
    });
    expect(kept.map((a) => [a.attempt, a.httpStatus])).toEqual([
      [1, 503],
      [2, 200],
    ]);
    expect(kept[1]).toMatchObject({ sentAt: 5000, headers: { 'x-id': '9' }, bodyBytes: 4, output: 'done' });
  });

  it('show no answer yet for a call in flight, only the earlier ones', () => {
    const kept = keptAnswers({
      attempts: 2,
      httpStatus: null,
      output: null,
      error: null,
      firedAt: 5000,
      durationMs: null,
      answers: { attempt: 2, earlier: [answer(1)] },
    });
    expect(kept.map((a) => a.attempt)).toEqual([1]);
  });

  it("are a row's columns alone, as its latest attempt, when it has no log (written before it)", () => {
    expect(keptAnswers({ ...row, answers: null })).toEqual([
      expect.objectContaining({ attempt: 2, httpStatus: 200, headers: null, bodyBytes: null }),
    ]);
    expect(keptAnswers({ ...row, firedAt: null, attempts: 0, answers: null })).toEqual([]);
  });
});
