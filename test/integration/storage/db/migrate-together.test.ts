import { afterAll, describe, expect, it } from 'vitest';
import { prepareDatabase } from '../../../../src/storage/db/migrate.js';
import { dropDatabase, MYSQL_SERVER, uniqueName } from '../../../helpers/stores.js';

/** Processes started together migrate one after the other: none trips over another's tables. */
const names = [uniqueName('migtogether'), uniqueName('migtogether')];

afterAll(async () => {
  for (const name of names) await dropDatabase(name);
});

describe('prepareDatabase run by several processes at once', () => {
  it('applies the migrations once, the others waiting for the lock and finding them applied', async () => {
    for (const name of names) {
      const url = `${MYSQL_SERVER}/${name}`;
      const results = await Promise.allSettled([
        prepareDatabase(url),
        prepareDatabase(url),
        prepareDatabase(url),
      ]);
      expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
    }
  });
});
