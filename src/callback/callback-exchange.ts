import { StringDecoder } from 'node:string_decoder';
import type { Dispatcher } from 'undici';
import { HeaderCollector } from './response-headers.js';

/** What a receiver answered: the status, the head of the body a run stores, its Retry-After. */
export interface CallAnswer {
  status: number;
  output: string;
  retryAfter: string | null;
  /** The response headers, bounded and with credentials masked (HeaderCollector). */
  headers: Record<string, string>;
  /** The whole body's size in bytes: as read when read whole, else its Content-Length, else null. */
  bodyBytes: number | null;
}

/** The call's deadline passed before the answer was read whole. */
export class CallTimeoutError extends Error {
  readonly code = 'XTIMER_CALL_TIMEOUT';
}

/** Ends a body read far enough: the connection is dropped rather than read on. */
class BodyCutOff extends Error {}

export interface ExchangeOptions {
  /** Characters of the body kept; a longer body is not read further. */
  maxOutput: number;
  /** One deadline over connect, head and body (from the dispatch: a wait for a free connection is the caller's). */
  timeoutMs: number;
}

/**
 * One request and its answer as an undici dispatch handler: no body stream, no
 * AbortController and no promise per chunk, which the request() API costs on every call
 * (a quarter of an executor's CPU at thousands of calls a second). The deadline's
 * abort waits for the event loop's next I/O poll: a process that fell behind (a burst, a
 * long GC) first reads answers that arrived in time and only wait in their sockets.
 */
export function exchange(
  dispatcher: Pick<Dispatcher, 'dispatch'>,
  request: Dispatcher.DispatchOptions,
  options: ExchangeOptions,
): Promise<CallAnswer> {
  return new Promise<CallAnswer>((resolve, reject) => {
    const handler = new Exchange(options, resolve, reject);
    try {
      dispatcher.dispatch(request, handler as Dispatcher.DispatchHandler);
    } catch (err) {
      handler.settle(err as Error);
    }
  });
}

/** The handler of one exchange: an object with its methods on the prototype, not a closure each, at every call. */
class Exchange {
  private abort: ((err: Error) => void) | null = null;
  private settled = false;
  private timedOut = false;
  private status = 0;
  private retryAfter: string | null = null;
  private output = '';
  private decoder: StringDecoder | null = null;
  private readonly collected = new HeaderCollector();
  private declaredBytes: number | null = null;
  private readBytes = 0;
  private whole = false;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly options: ExchangeOptions,
    private readonly resolve: (answer: CallAnswer) => void,
    private readonly reject: (err: Error) => void,
  ) {
    this.timer = setTimeout(onDeadline, options.timeoutMs, this);
  }

  /** The deadline passed (looked at after the next I/O poll). */
  expire(): void {
    if (this.settled) return;
    this.timedOut = true;
    const err = new CallTimeoutError(`timeout after ${this.options.timeoutMs} ms`);
    // Not connected yet: the request is dropped once it gets its connection.
    this.abort?.(err);
    this.settle(err);
  }

  settle(err: Error | null): void {
    if (this.settled) return;
    this.settled = true;
    clearTimeout(this.timer);
    if (err && !(err instanceof BodyCutOff)) this.reject(err);
    else
      this.resolve({
        status: this.status,
        output: this.output.slice(0, this.options.maxOutput),
        retryAfter: this.retryAfter,
        headers: this.collected.headers,
        bodyBytes: this.whole ? this.readBytes : this.declaredBytes,
      });
  }

  onConnect(abortRequest: (err?: Error) => void): void {
    this.abort = abortRequest;
    if (this.timedOut) abortRequest(new CallTimeoutError('timeout'));
  }

  onHeaders(statusCode: number, rawHeaders: Buffer[]): boolean {
    this.status = statusCode;
    for (let i = 0; i < rawHeaders.length; i += 2) {
      const name = (rawHeaders[i] as Buffer).toString('latin1');
      const value = (rawHeaders[i + 1] as Buffer).toString('latin1');
      this.collected.add(name, value);
      const lower = name.toLowerCase();
      if (lower === 'retry-after') this.retryAfter = value;
      else if (lower === 'content-length' && /^[0-9]{1,15}$/.test(value)) this.declaredBytes = Number(value);
    }
    return true;
  }

  onData(chunk: Buffer): boolean {
    this.readBytes += chunk.length;
    this.decoder ??= new StringDecoder('utf8');
    this.output += this.decoder.write(chunk);
    if (this.output.length < this.options.maxOutput) return true;
    this.abort?.(new BodyCutOff());
    this.settle(null);
    return false;
  }

  onComplete(): void {
    this.whole = true;
    if (this.decoder) this.output += this.decoder.end();
    this.settle(null);
  }

  onError(err: Error): void {
    this.settle(err);
  }
}

function onDeadline(exchange: Exchange): void {
  setImmediate(expire, exchange);
}

function expire(exchange: Exchange): void {
  exchange.expire();
}
