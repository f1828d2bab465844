// Adds package-lock entries for optional platform packages (other OSes' native
// binaries of biome, msgpackr-extract, ...) that `npm install` left out because the
// registry it used could not serve them. `npm ci` insists on finding every optional
// dependency in the lock; these entries are never fetched on a platform they do not
// match. Usage: node scripts/lock-platform-packages.mjs package-lock.json
import { readFileSync, writeFileSync } from 'node:fs';

const file = process.argv[2] ?? 'package-lock.json';
const lock = JSON.parse(readFileSync(file, 'utf8'));
const pkgs = lock.packages;
const platform = (name) => {
  const m = /(darwin|linux|win32|android|freebsd)-(arm64|x64|arm|ia32)(-(musl|gnu))?/.exec(name);
  return m ? { os: [m[1]], cpu: [m[2]], ...(m[4] ? { libc: [m[4]] } : {}) } : null;
};
let added = 0;
for (const [path, entry] of Object.entries(pkgs)) {
  for (const [dep, range] of Object.entries(entry.optionalDependencies ?? {})) {
    const key = `node_modules/${dep}`;
    if (pkgs[key] || pkgs[`${path}/node_modules/${dep}`]) continue;
    const p = platform(dep);
    if (!p) {
      console.error('unknown platform for', dep);
      continue;
    }
    pkgs[key] = { version: range.replace(/^[\^~]/, ''), ...p, optional: true };
    added++;
  }
}
lock.packages = Object.fromEntries(
  Object.entries(pkgs).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))),
);
writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
console.log('added', added);
