import { describe, expect, it } from 'vitest';
import { RunBudget } from '../../../../../src/services/firing/admission/run-budget.js';

describe('RunBudget: how many runs one executor process carries at once', () => {
  it('grants permits up to its size, then makes runs wait', async () => {
    const budget = new RunBudget(2);
    expect(await budget.take()).toBe(true);
    expect(await budget.take()).toBe(true);
    let third = false;
    const waiting = budget.take().then((granted) => {
      third = granted;
    });
    await Promise.resolve();
    expect(third).toBe(false);
    expect(budget.waiting).toBe(1);
    budget.give();
    await waiting;
    expect(third).toBe(true);
    expect(budget.waiting).toBe(0);
  });

  it('hands a freed permit to the longest waiter, in arrival order, over thousands', async () => {
    const budget = new RunBudget(1);
    await budget.take();
    const order: number[] = [];
    const waiters = Array.from({ length: 5000 }, (_, i) => budget.take().then(() => order.push(i)));
    for (let i = 0; i < 5000; i++) budget.give();
    await Promise.all(waiters);
    expect(order).toEqual(Array.from({ length: 5000 }, (_, i) => i));
  });

  it('tells every waiter to give up when closed, and grants nothing after', async () => {
    const budget = new RunBudget(1);
    await budget.take();
    const waiting = budget.take();
    expect(budget.close()).toBe(1);
    expect(await waiting).toBe(false);
    expect(await budget.take()).toBe(false);
  });
});
