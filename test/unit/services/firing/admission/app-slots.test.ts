import { describe, expect, it } from 'vitest';
import { AppSlots } from '../../../../../src/services/firing/admission/app-slots.js';

describe('AppSlots', () => {
  it("limits one app's calls in flight without limiting another app", () => {
    const slots = new AppSlots(2);
    expect([slots.tryTake('noisy'), slots.tryTake('noisy'), slots.tryTake('noisy')]).toEqual([
      true,
      true,
      false,
    ]);
    expect(slots.tryTake('quiet')).toBe(true);
  });

  it('hands a freed slot to the app’s longest-waiting run, in order', async () => {
    const slots = new AppSlots(1);
    slots.tryTake('a');
    const order: number[] = [];
    const first = slots.take('a').then(() => order.push(1));
    const second = slots.take('a').then(() => order.push(2));
    expect(slots.waiting).toBe(2);
    // A newcomer may not jump the queue.
    expect(slots.tryTake('a')).toBe(false);
    slots.give('a');
    await first;
    slots.give('a');
    await second;
    expect(order).toEqual([1, 2]);
    expect(slots.waiting).toBe(0);
  });

  it('tells every waiting run to give up when closed', async () => {
    const slots = new AppSlots(1);
    slots.tryTake('a');
    const waiting = slots.take('a');
    expect(slots.close()).toBe(1);
    expect(await waiting).toBe(false);
    expect(await slots.take('b')).toBe(false);
  });
});
