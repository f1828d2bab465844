import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `xtimer …` from the sources as its own process against `base` with `token`, given as
 * XTIMER_URL and XTIMER_TOKEN (the `env` given wins), colour off.
 */
export async function runXtimer(
  base: string,
  token: string,
  args: readonly string[],
  env: Record<string, string> = {},
): Promise<CliResult> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'cli/main.ts', ...args], {
    cwd: ROOT,
    env: {
      ...process.env,
      XTIMER_URL: base,
      XTIMER_TOKEN: token,
      NO_COLOR: '',
      FORCE_COLOR: '',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (b: Buffer) => (stdout += b));
  child.stderr.on('data', (b: Buffer) => (stderr += b));
  const [code] = await once(child, 'exit');
  return { code, stdout, stderr };
}
