/**
 * `xtimer/client`: a typed client of the xtimer API, and the signature check for receivers.
 * The types are generated from the service's own /openapi.json (npm run client:types);
 * the client is openapi-fetch over them.
 */
import createClient, { type Client, type Middleware } from 'openapi-fetch';
import type { paths } from './openapi-types.js';

export type { components, operations, paths } from './openapi-types.js';
export {
  type CallbackRequest,
  CallbackVerificationError,
  verifyCallback,
  type XtimerRun,
} from './verify-callback.js';

export interface XtimerClientOptions {
  /** Where xtimer answers, e.g. `http://127.0.0.1:8081` (the paths start with /api/v1). */
  baseUrl: string;
  /** XTIMER_ADMIN_TOKEN or an app's API key, sent as a bearer token; none in open mode. */
  token?: string | undefined;
  /** Headers sent with every request. */
  headers?: Record<string, string> | undefined;
  /** A fetch of your own (tests, proxies); the global one by default. */
  fetch?: ((input: Request) => Promise<Response>) | undefined;
}

/** The openapi-fetch client typed with xtimer's paths: `await client.GET('/api/v1/timers/{id}', …)` gives `{ data, error }`. */
export type XtimerClient = Client<paths>;

/**
 * Every change is sent as JSON, an empty one (enable, trigger) too: xtimer in open mode
 * refuses a change of any other content type (no web page can send one cross-site).
 */
const jsonChanges: Middleware = {
  onRequest({ request }) {
    if (request.method !== 'GET' && request.method !== 'HEAD' && !request.headers.has('content-type')) {
      request.headers.set('content-type', 'application/json');
    }
    return request;
  },
};

export function createXtimerClient(options: XtimerClientOptions): XtimerClient {
  const client = createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    headers: {
      ...options.headers,
      ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
    },
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  client.use(jsonChanges);
  return client;
}
