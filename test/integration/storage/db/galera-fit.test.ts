import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestStores, type TestStores } from '../../../helpers/stores.js';

/**
 * What Galera asks of a schema and its users: it replicates InnoDB rows only, by primary
 * key, and table locks and named locks hold on one node, not across the cluster.
 */
let stores: TestStores;
const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

beforeAll(async () => {
  stores = await createTestStores('galerafit');
});
afterAll(async () => {
  await stores?.cleanup();
});

async function sourceFiles(dir: string): Promise<string[]> {
  const entries = await readdir(join(ROOT, dir), { withFileTypes: true, recursive: true });
  return entries
    .filter((e) => e.isFile() && /\.(ts|lua|sql)$/.test(e.name))
    .map((e) => join(e.parentPath, e.name));
}

describe('the migrated schema under Galera', () => {
  it('gives every table, the migrations journal included, a primary key and InnoDB', async () => {
    const [tables] = await stores.database.pool.query(
      `SELECT t.table_name AS name, t.engine,
              EXISTS (SELECT 1 FROM information_schema.table_constraints c
                       WHERE c.table_schema = t.table_schema AND c.table_name = t.table_name
                         AND c.constraint_type = 'PRIMARY KEY') AS hasKey
         FROM information_schema.tables t
        WHERE t.table_schema = DATABASE() AND t.table_type = 'BASE TABLE'`,
    );
    const rows = tables as Array<{ name: string; engine: string; hasKey: number }>;
    expect(rows.map((r) => r.name)).toContain('__drizzle_migrations');
    expect(rows.filter((r) => !r.hasKey || r.engine !== 'InnoDB')).toEqual([]);
  });

  it('relies on no table lock, and on a named lock only to serialise migrations on one server', async () => {
    const files = [
      ...(await sourceFiles('src')),
      ...(await sourceFiles('workers')),
      ...(await sourceFiles('api')),
    ];
    const users: string[] = [];
    for (const file of files) {
      const text = await readFile(file, 'utf8');
      if (/LOCK\s+TABLES?\b|GET_LOCK\s*\(/i.test(text)) users.push(file.slice(ROOT.length));
    }
    expect(users).toEqual(['src/storage/db/migrate.ts']);
  });
});
