import { defineConfig } from 'drizzle-kit';

// `npm run db:generate` writes a new migration from src/storage/db/schema.ts; commit it.
// (drizzle-kit `push` silently does nothing on MariaDB: always generate + migrate.)
export default defineConfig({
  dialect: 'mysql',
  schema: './src/storage/db/schema.ts',
  out: './src/storage/db/migrations',
});
