import { ANSWER_LIMITS } from '../domain/attempt-answers.js';
import { isCredentialName, MASK } from '../domain/audit.js';

/** Headers about the connection, not the answer: not kept. */
const CONNECTION_HEADERS = new Set(['connection', 'keep-alive', 'transfer-encoding']);

/**
 * Collects response headers within ANSWER_LIMITS: lower-cased names, the connection's own
 * left out, credential-looking names (Set-Cookie, tokens, signatures) masked; what does not
 * fit is dropped.
 */
export class HeaderCollector {
  private bytes = 0;
  readonly headers: Record<string, string> = {};

  add(name: string, value: string): void {
    const lower = name.toLowerCase();
    if (CONNECTION_HEADERS.has(lower)) return;
    const kept = isCredentialName(lower) ? MASK : value.slice(0, ANSWER_LIMITS.headerValueMaxChars);
    const before = this.headers[lower];
    const size = before === undefined ? lower.length + kept.length : kept.length + 2;
    if (this.bytes + size > ANSWER_LIMITS.headersMaxBytes) return;
    this.bytes += size;
    this.headers[lower] = before === undefined ? kept : `${before}, ${kept}`;
  }
}
