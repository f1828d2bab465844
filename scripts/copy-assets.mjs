// `npm run build`, after tsc: copies the files the compiled code reads at run time
// (Lua scripts, SQL migrations and their drizzle journal) next to it in dist/, at the
// same relative paths, so `node dist/workers/main.js` finds them as tsx does in src/.
import { copyFileSync, existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = join(root, 'dist');

/** Folders copied whole, and the file names taken from each (null = every file). */
const ASSETS = [
  { from: 'src/storage/redis/lua', match: /\.lua$/ },
  { from: 'src/storage/db/migrations', match: null },
];

let copied = 0;
for (const { from, match } of ASSETS) {
  const source = join(root, from);
  if (!existsSync(source)) throw new Error(`copy-assets: ${from} does not exist`);
  const target = join(dist, from);
  // A migration or script removed from src must not linger in dist.
  rmSync(target, { recursive: true, force: true });
  for (const entry of readdirSync(source, { recursive: true })) {
    const file = join(source, String(entry));
    if (!statSync(file).isFile() || (match && !match.test(file))) continue;
    const out = join(target, relative(source, file));
    mkdirSync(dirname(out), { recursive: true });
    copyFileSync(file, out);
    copied++;
  }
}
console.log(`copy-assets: ${copied} files into ${relative(root, dist)}/`);
