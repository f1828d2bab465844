#!/usr/bin/env node
// The `xtimer` command (package.json "bin"): see `xtimer --help` and docs/timers-as-code.md.
import { runCli } from './program.js';

// A reader that stopped reading (`xtimer runs 1 --follow | head -3`) is not an error.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(0);
  throw err;
});

process.exitCode = await runCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  env: process.env,
});
