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
    let abort: ((err: Error) => void) | null = null;
    let settled = false;
    let timedOut = false;
    let status = 0;
    let retryAfter: string | null = null;
    let output = '';
    let decoder: StringDecoder | null = null;
    const collected = new HeaderCollector();
    let declaredBytes: number | null = null;
    let readBytes = 0;
    let whole = false;
    const settle = (err: Error | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (err && !(err instanceof BodyCutOff)) reject(err);
      else
        resolve({
          status,
          output: output.slice(0, options.maxOutput),
          retryAfter,
          headers: collected.headers,
          bodyBytes: whole ? readBytes : declaredBytes,
        });
    };
    const timer = setTimeout(() => {
      setImmediate(() => {
        if (settled) return;
        timedOut = true;
        const err = new CallTimeoutError(`timeout after ${options.timeoutMs} ms`);
        // Not connected yet: the request is dropped once it gets its connection.
        abort?.(err);
        settle(err);
      });
    }, options.timeoutMs);
    const handler: Dispatcher.DispatchHandler = {
      onConnect(abortRequest: (err?: Error) => void) {
        abort = abortRequest;
        if (timedOut) abortRequest(new CallTimeoutError('timeout'));
      },
      onHeaders(statusCode: number, rawHeaders: Buffer[]) {
        status = statusCode;
        for (let i = 0; i < rawHeaders.length; i += 2) {
          const name = (rawHeaders[i] as Buffer).toString('latin1');
          const value = (rawHeaders[i + 1] as Buffer).toString('latin1');
          collected.add(name, value);
          const lower = name.toLowerCase();
          if (lower === 'retry-after') retryAfter = value;
          else if (lower === 'content-length' && /^[0-9]{1,15}$/.test(value)) declaredBytes = Number(value);
        }
        return true;
      },
      onData(chunk: Buffer) {
        readBytes += chunk.length;
        decoder ??= new StringDecoder('utf8');
        output += decoder.write(chunk);
        if (output.length < options.maxOutput) return true;
        abort?.(new BodyCutOff());
        settle(null);
        return false;
      },
      onComplete() {
        whole = true;
        if (decoder) output += decoder.end();
        settle(null);
      },
      onError(err: Error) {
        settle(err);
      },
    } as Dispatcher.DispatchHandler;
    try {
      dispatcher.dispatch(request, handler);
    } catch (err) {
      settle(err as Error);
    }
  });
}
