import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';
import { freePort, XtimerProcess } from '../../helpers/processes.js';
import { createTestStores, type TestStores } from '../../helpers/stores.js';

/**
 * The console in a real browser for this folder's tests: Debian's chromium driven by
 * playwright-core against a real xtimer process serving the api role (the console's pages
 * need no firing: a test that needs runs records them). Without chromium a test fails,
 * naming the command that installs it.
 */

const CHROMIUM = '/usr/bin/chromium';
const INSTALL = 'apt-get install -y chromium';

export interface ConsoleInBrowser {
  stores: TestStores;
  browser: Browser;
  /** `http://127.0.0.1:<port>`: the process's address. */
  base: string;
  /** A JSON call to the process's API. */
  api(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
  stop(): Promise<void>;
}

/** Debian's chromium, headless, reaching no host but the ones a page asks for. */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `the browser tests need Chromium at ${CHROMIUM}: install it with \`${INSTALL}\` (.ci/run does)`,
    );
  }
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}

export async function startConsole(label: string): Promise<ConsoleInBrowser> {
  const stores = await createTestStores(label);
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const proc = new XtimerProcess(label, {
    ...stores.env,
    XTIMER_ROLES: 'api',
    PORT: String(port),
    // started() waits for the info line saying the roles are up.
    LOG_LEVEL: 'info',
  });
  let browser: Browser | undefined;
  try {
    await proc.started();
    browser = await launchChromium();
  } catch (err) {
    await proc.stop();
    await stores.cleanup();
    throw err;
  }
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? null : JSON.stringify(body),
    });
    const raw = await res.text();
    return { status: res.status, body: raw ? JSON.parse(raw) : null };
  };
  return {
    stores,
    browser,
    base,
    api,
    async stop() {
      await browser?.close();
      await proc.stop();
      await stores.cleanup();
    },
  };
}
