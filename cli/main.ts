#!/usr/bin/env node
// The `xtimer` command (package.json "bin"): see `xtimer --help` and README "Timers as code".
import { runCli } from './program.js';

process.exitCode = await runCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  env: process.env,
});
