// Generated from xtimer's /openapi.json by `npm run client:types` (openapi-typescript). Do not edit.

export interface paths {
    "/healthz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Liveness: the process answers, and its roles thread beats
         * @description Never asks Redis or MySQL (an outage of theirs is no reason to restart): 503 only when a thread of the process has been silent for 60 s, a wedged loop that only a restart ends.
         */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Alive */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            status: string;
                            checks?: {
                                [key: string]: string;
                            };
                        };
                    };
                };
                /** @description A thread is wedged */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            status: string;
                            checks?: {
                                [key: string]: string;
                            };
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/readyz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Readiness: Redis and MySQL take writes */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Ready */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            status: string;
                            checks?: {
                                [key: string]: string;
                            };
                        };
                    };
                };
                /** @description A dependency is down */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            status: string;
                            checks?: {
                                [key: string]: string;
                            };
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/timers/bulk": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Pause, resume or run now many timers at once: one audited batch
         * @description Each timer goes through the same change as on its own (disable with the note and until, enable, trigger), each audited under one batchId. A pause or resume counts once against the rate limit; a run now, once per run.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["BulkAction"];
                };
            };
            responses: {
                /** @description How many it changed, and the batch */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["BulkResult"];
                    };
                };
                /** @description No ids, more than 1,000, or an until in the past */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No valid bearer token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Another app's timer among them (nothing changed) */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A timer among them does not exist (nothing changed) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Rate limit of the app key reached (see Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/timers": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List timers (by app, status, labels and name, id order, cursor-paginated) */
        get: {
            parameters: {
                query?: {
                    /** @description The business system that owns the timer. */
                    app?: string;
                    status?: "inactive" | "active" | "completed";
                    /** @description key:value; repeat it for timers carrying every one of the labels. */
                    label?: string;
                    /** @description Timers whose name holds this text (case-insensitive). */
                    q?: string;
                    limit?: number;
                    /** @description nextCursor of the previous page. */
                    cursor?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description A page of timers */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["TimerPage"];
                    };
                };
                /** @description Invalid input */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No valid bearer token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Another app's timer, or another app named */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        /** Create a timer */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["CreateTimer"];
                };
            };
            responses: {
                /** @description Created */
                201: {
                    headers: {
                        /** @description The timer's version, for If-Match */
                        ETag?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Timer"];
                    };
                };
                /** @description Invalid input */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No valid bearer token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Another app's timer, or another app named; RETIRED_KEY: a key in its grace period may not set or change notify */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The app already has a timer of that name, or MAX_TIMERS_PER_APP timers */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body over 1 MiB */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Rate limit of the app key reached (see Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/timers/batch": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create up to 1,000 timers, all or nothing
         * @description One invalid timer fails the whole request with 400 (409 for a name taken), naming it by its index (`timers.<index>` in the message and details), and nothing is stored. The timers are created in one transaction, in the order sent; the body is at most 1 MiB.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["CreateTimerBatch"];
                };
            };
            responses: {
                /** @description Created */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["TimerBatch"];
                    };
                };
                /** @description Invalid input */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No valid bearer token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Another app's timer, or another app named; RETIRED_KEY: a key in its grace period may not set or change notify */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description An app already has a timer of one of the names, or would pass MAX_TIMERS_PER_APP timers */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body over 1 MiB */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Rate limit of the app key reached (see Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/timers/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get a timer */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The timer */
                200: {
                    headers: {
                        /** @description The timer's version, for If-Match */
                        ETag?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Timer"];
                    };
                };
                /** @description Invalid input */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No valid bearer token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Another app's timer, or another app named */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No such timer */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        /** Delete a timer and cancel its pending runs */
        delete: {
            parameters: {
                query?: never;
                header?: {
                    /** @description The timer's ETag as last read: the change is made only if the timer is still at that version (412 VERSION_CONFLICT otherwise). `*`: only if it exists. */
                    "if-match"?: string;
                };
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Deleted */
                204: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description Invalid input */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No valid bearer token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Another app's timer, or another app named */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No such timer */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description If-Match names another version (VERSION_CONFLICT) */
                412: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Rate limit of the app key reached (see Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        /** Change a timer (a new cron or timezone re-plans its future runs) */
        patch: {
            parameters: {
                query?: never;
                header?: {
                    /** @description The timer's ETag as last read: the change is made only if the timer is still at that version (412 VERSION_CONFLICT otherwise). `*`: only if it exists. */
                    "if-match"?: string;
                };
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["UpdateTimer"];
                };
            };
            responses: {
                /** @description The changed timer */
                200: {
                    headers: {
                        /** @description The timer's version, for If-Match */
                        ETag?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Timer"];
                    };
                };
                /** @description Invalid input */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No valid bearer token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Another app's timer, or another app named; RETIRED_KEY: a key in its grace period may not set or change notify */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No such timer */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Name taken */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description If-Match names another version (VERSION_CONFLICT) */
                412: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Rate limit of the app key reached (see Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        trace?: never;
    };
    "/api/v1/timers/{id}/enable": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Activate a timer; its runs are planned at once */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The active timer */
                200: {
                    headers: {
                        /** @description The timer's version, for If-Match */
                        ETag?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Timer"];
                    };
                };
                /** @description Invalid input */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No valid bearer token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Another app's timer, or another app named */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No such timer */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Rate limit of the app key reached (see Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/timers/{id}/disable": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Deactivate a timer; nothing due after this fires
         * @description The body is optional: {"note": "why", "until": "2026-12-01T09:00:00Z"} (the Pause schema). The timer JSON then shows pausedNote, pausedAt and pausedUntil; at `until` the timer resumes by itself, once cluster-wide, audited as actor `system`.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: {
                content: {
                    "application/json": components["schemas"]["Pause"];
                };
            };
            responses: {
                /** @description The inactive timer */
                200: {
                    headers: {
                        /** @description The timer's version, for If-Match */
                        ETag?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Timer"];
                    };
                };
                /** @description Invalid input */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No valid bearer token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Another app's timer, or another app named */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No such timer */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Rate limit of the app key reached (see Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/apps/{app}/calendars/{name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A calendar */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description The business system that owns the timer. */
                    app: string;
                    name: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The calendar */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Calendar"];
                    };
                };
                /** @description Invalid input */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No valid bearer token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Another app's timer, or another app named */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No such timer */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        /** Create or replace a calendar of dates the app's timers may skip; re-plans the future runs of every timer naming it */
        put: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description The business system that owns the timer. */
                    app: string;
                    name: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["PutCalendar"];
                };
            };
            responses: {
                /** @description The calendar, replaced */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Calendar"];
                    };
                };
                /** @description The calendar, created */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Calendar"];
                    };
                };
                /** @description Invalid input */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No valid bearer token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Another app's timer, or another app named */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No such timer */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Rate limit of the app key reached (see Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        post?: never;
        /** Delete a calendar no timer names (409 CALENDAR_IN_USE naming the timers otherwise) */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description The business system that owns the timer. */
                    app: string;
                    name: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Deleted */
                204: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description Invalid input */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No valid bearer token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Another app's timer, or another app named */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No such timer */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Timers name it */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/apps/{app}/calendars": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The app's calendars, by name */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description The business system that owns the timer. */
                    app: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The calendars */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            items: components["schemas"]["Calendar"][];
                        };
                    };
                };
                /** @description Invalid input */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No valid bearer token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Another app's timer, or another app named */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No such timer */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/apps/{app}/pause": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Disable all of an app's active timers at once, with one note (and until)
         * @description The body is optional, as for a disable: {"note", "until"} (the Pause schema).
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description The business system that owns the timer. */
                    app: string;
                };
                cookie?: never;
            };
            requestBody?: {
                content: {
                    "application/json": components["schemas"]["Pause"];
                };
            };
            responses: {
                /** @description How many were paused */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AppTimersChanged"];
                    };
                };
                /** @description Invalid input */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No valid bearer token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Another app's timer, or another app named */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No such timer */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Rate limit of the app key reached (see Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/apps/{app}/resume": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Enable all of an app's disabled timers at once */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description The business system that owns the timer. */
                    app: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description How many were resumed */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AppTimersChanged"];
                    };
                };
                /** @description Invalid input */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No valid bearer token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Another app's timer, or another app named */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No such timer */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Rate limit of the app key reached (see Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/timers/{id}/tasks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A timer's runs, newest first (pending and missed included) */
        get: {
            parameters: {
                query?: {
                    /** @description Comma list of statuses. */
                    status?: string;
                    from?: string;
                    to?: string;
                    /** @description true: the pending runs still to come, soonest first. Otherwise (default) history: runs at or before now, newest first. */
                    upcoming?: string;
                    limit?: number;
                    /** @description nextCursor of the previous page. */
                    cursor?: string;
                };
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description A page of runs */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["TaskPage"];
                    };
                };
                /** @description Invalid input */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No valid bearer token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Another app's timer, or another app named */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No such timer */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/timers/{id}/trigger": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Run now: call the callback at once, whatever the timer’s status
         * @description The run is listed with trigger "manual" and sends X-Xtimer-Trigger: manual; it ends like any run.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The run, queued */
                202: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["QueuedRun"];
                    };
                };
                /** @description Invalid input */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No valid bearer token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Another app's timer, or another app named */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No such timer */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Rate limit of the app key reached (see Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/timers/{id}/tasks/{taskId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One run: its trigger and outcome, the request its attempts send and the latest answer */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                    taskId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The run, its request (secrets as ***) and its latest answer */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["RunDetail"];
                    };
                };
                /** @description Invalid input */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No valid bearer token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Another app's timer, or another app named */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No such timer, or no such run of it (TASK_NOT_FOUND) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/timers/{id}/tasks/{taskId}/retry": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Call a failed or missed run again, as its next attempt, with the same task id */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                    taskId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The run, queued again (trigger "retry") */
                202: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["QueuedRun"];
                    };
                };
                /** @description Invalid input */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No valid bearer token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Another app's timer, or another app named */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No such timer, or no such run of it (TASK_NOT_FOUND) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The run is not failed or missed (TASK_NOT_RETRYABLE) */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Rate limit of the app key reached (see Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/timers/{id}/backfills/preview": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** What a backfill over [from, to) would run, changing nothing; refused as a start would be */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["StartBackfill"];
                };
            };
            responses: {
                /** @description Its runs, and those it would send */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["BackfillPreview"];
                    };
                };
                /** @description Invalid input */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No valid bearer token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Another app's timer, or another app named */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No such timer */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/timers/{id}/backfills": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The timer's backfills, newest first (the latest 20) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Its backfills */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            items: components["schemas"]["Backfill"][];
                        };
                    };
                };
                /** @description Invalid input */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No valid bearer token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Another app's timer, or another app named */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No such timer */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        /**
         * Run the schedule's runs over a past range [from, to), paced at BACKFILL_RATE
         * @description At most 10,000 runs. Runs the history already has are left alone; the others are sent with X-Xtimer-Trigger: backfill, with the same task ids, claims and fencing as scheduled runs.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["StartBackfill"];
                };
            };
            responses: {
                /** @description The backfill, started */
                202: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Backfill"];
                    };
                };
                /** @description A to after now, an empty range, or more than 10,000 runs (BACKFILL_TOO_LARGE) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No valid bearer token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Another app's timer, or another app named */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No such timer */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Another backfill of the timer is under way over part of the range (BACKFILL_OVERLAPS) */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Rate limit of the app key reached (see Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/timers/{id}/backfills/{backfillId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A backfill's progress: runs planned, sent, done and failed */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                    backfillId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The backfill */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Backfill"];
                    };
                };
                /** @description Invalid input */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No valid bearer token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Another app's timer, or another app named */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No such timer, or no such backfill of it (BACKFILL_NOT_FOUND) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        /** Cancel a backfill: its runs not yet sent are removed; those sent end as they will */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                    backfillId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The backfill, cancelled (or as it ended, if it had) */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Backfill"];
                    };
                };
                /** @description Invalid input */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No valid bearer token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Another app's timer, or another app named */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No such timer, or no such backfill of it (BACKFILL_NOT_FOUND) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Rate limit of the app key reached (see Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/timers/{id}/preview": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The next fire times in the timer’s time zone (or of a cron and zone to try) */
        get: {
            parameters: {
                query?: {
                    count?: number;
                    /** @description ISO-8601 time or epoch ms: the fire times at or after it (default: those after now). */
                    from?: string;
                    /** @description true: items are {at, skippedBy}, the dates a calendar skips included, skippedBy naming the calendars (null for a run that fires). */
                    explain?: string;
                };
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Upcoming fire times (with explain=true: each nominal instant, skipped ones named) */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Preview"] | components["schemas"]["ExplainedPreview"];
                    };
                };
                /** @description Invalid input, or a schedule too costly to evaluate (CRON_TOO_COSTLY) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No valid bearer token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Another app's timer, or another app named */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No such timer */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Rate limit of the app key reached (see Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/preview": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The next fire times of a cron and time zone, or an interval, not saved yet (checked as on create) */
        get: {
            parameters: {
                query?: {
                    count?: number;
                    /** @description ISO-8601 time or epoch ms: the fire times at or after it (default: those after now). */
                    from?: string;
                    /** @description Cron with 5 fields (minute precision) or 6 (seconds first). Names, ranges, steps, L, # and W (nearest weekday, LW) are supported, and H, H(a-b), H/n: a value chosen by a stable hash of the app and timer name (resolvedCron shows it). */
                    cron?: string;
                    /** @description Instead of cron or at: an interval timer, running at epoch + offset + k·every in real time (no time zone, no DST). A count and a unit (s, m, h, d; 1h30m) or an ISO-8601 duration (PT90M); at least 1s. */
                    every?: string;
                    /** @description With every: where the runs fall within each period, from the epoch; shorter than every (default 0s). */
                    offset?: string;
                    timezone?: string;
                    /** @description With name: the timer H in the cron is resolved for (default: none). */
                    app?: string;
                    /** @description Unique within the app. */
                    name?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Upcoming fire times */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Preview"];
                    };
                };
                /** @description Invalid input, or a schedule too costly to evaluate (CRON_TOO_COSTLY) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No valid bearer token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Another app's timer, or another app named */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No such timer */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Rate limit of the app key reached (see Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/apps": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the apps (admin) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Every app, by name */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AppList"];
                    };
                };
                /** @description No valid bearer token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not allowed for this token */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        /** Create an app (admin): returns its API key and signing secret, once */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["CreateApp"];
                };
            };
            responses: {
                /** @description Created, with its credentials */
                201: {
                    headers: {
                        /** @description no-store: the answer holds a credential */
                        "Cache-Control"?: "no-store";
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["IssuedApp"];
                    };
                };
                /** @description Invalid input */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No valid bearer token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not allowed for this token */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The app exists */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/apps/{app}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** An app (admin, or the app itself) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description The business system that owns the timer. */
                    app: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The app */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["App"];
                    };
                };
                /** @description No valid bearer token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not allowed for this token */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No such app */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /** Set an app's default failure notification (admin, or the app itself) */
        patch: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description The business system that owns the timer. */
                    app: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["UpdateApp"];
                };
            };
            responses: {
                /** @description The app */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["App"];
                    };
                };
                /** @description Invalid input, or a notify URL the SSRF guard refuses (TARGET_BLOCKED) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No valid bearer token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Another app, or a key in its grace period (RETIRED_KEY) */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No such app */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        trace?: never;
    };
    "/api/v1/apps/{app}/rotate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Issue a new API key or signing secret (admin, or the app itself with its current key); the old one stays valid for a grace period */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description The business system that owns the timer. */
                    app: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["RotateApp"];
                };
            };
            responses: {
                /** @description The new key or secret */
                200: {
                    headers: {
                        /** @description no-store: the answer holds a credential */
                        "Cache-Control"?: "no-store";
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["IssuedApp"];
                    };
                };
                /** @description Invalid input */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No valid bearer token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Another app, or a key in its grace period (RETIRED_KEY) */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No such app */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/apps/{app}/timers/{name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Create or replace the app’s timer of that name (idempotent)
         * @description Creates the timer (201) or replaces its whole definition (200). A definition equal to the stored one changes nothing: 200, no version bump, no re-plan, no audit entry. With If-Match, the timer must exist at that version (412 VERSION_CONFLICT otherwise, and nothing changes).
         */
        put: {
            parameters: {
                query?: never;
                header?: {
                    /** @description The timer's ETag as last read: the change is made only if the timer is still at that version (412 VERSION_CONFLICT otherwise). `*`: only if it exists. */
                    "if-match"?: string;
                };
                path: {
                    /** @description The business system that owns the timer. */
                    app: string;
                    /** @description Unique within the app. */
                    name: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["UpsertTimer"];
                };
            };
            responses: {
                /** @description Replaced, or already so */
                200: {
                    headers: {
                        /** @description The timer's version, for If-Match */
                        ETag?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Timer"];
                    };
                };
                /** @description Created */
                201: {
                    headers: {
                        /** @description The timer's version, for If-Match */
                        ETag?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Timer"];
                    };
                };
                /** @description Invalid input */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No valid bearer token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Another app's timers; RETIRED_KEY: a key in its grace period may not set or change notify */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description MAX_TIMERS_PER_APP reached, or the app is busy (APP_BUSY) */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description If-Match names another version (VERSION_CONFLICT) */
                412: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body over 1 MiB */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Rate limit of the app key reached (see Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/apps/{app}/apply": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Make the app’s timers the set given: a plan, applied all or nothing
         * @description Compares the set with the app’s timers by name: each is `create`, `update` (with its `changes`) or `unchanged`; with `prune`, the app’s other timers are `delete`. With `dryRun` nothing changes (it counts against the app key’s rate limit all the same), and the answer’s `planId` sent back with the apply carries out that plan or none; otherwise the plan is carried out in one transaction under the app’s mutex, and its audit entries share the answer's batchId. An invalid timer fails the whole request naming its index (`timers.<i>.<field>`). At most 5,000 timers and 16 MiB.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description The business system that owns the timer. */
                    app: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["Apply"];
                };
            };
            responses: {
                /** @description The plan, and whether it was applied */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApplyResult"];
                    };
                };
                /** @description Invalid input, naming the timer by its index */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No valid bearer token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Another app's timers; RETIRED_KEY: a key in its grace period may not set or change notify */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description MAX_TIMERS_PER_APP would be passed, a timer cannot be re-activated, or the app is busy */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The plan is no longer the one `planId` names (VERSION_CONFLICT) */
                412: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Body over 16 MiB */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Rate limit of the app key reached (see Retry-After) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/audit": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The audit log, newest first: who changed what, by app, timer or batch */
        get: {
            parameters: {
                query?: {
                    /** @description The business system that owns the timer. */
                    app?: string;
                    timerId?: string;
                    /** @description The entries of one batch of changes (an apply). */
                    batchId?: string;
                    limit?: number;
                    /** @description nextCursor of the previous page. */
                    cursor?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description A page of entries */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AuditPage"];
                    };
                };
                /** @description Invalid input */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No valid bearer token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Another app named */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/pause": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Whether everything is paused, and why (admin) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The pause, or {"paused": false} */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ServicePauseState"];
                    };
                };
                /** @description No valid bearer token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not the admin token (an app key) */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        /**
         * Pause everything, every app, with a note (admin): the emergency brake
         * @description Within about 2 s every executor records the runs that fall due, and those already queued, as skipped with the error "paused: <note>" instead of calling them; backfills likewise. Run now and retry still go. Pausing again changes the note and keeps pausedAt. Audited as pause_all.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["PauseAll"];
                };
            };
            responses: {
                /** @description Paused */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ServicePaused"];
                    };
                };
                /** @description No note, or an empty, overlong or multi-line one */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No valid bearer token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not the admin token (an app key) */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/resume": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * End the pause of everything (admin); nothing to end is no error
         * @description Runs due from then on are called again (within about 2 s); the runs skipped meanwhile stay skipped. No body is needed. Audited as resume_all.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Not paused, and the pause that ended */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ServiceResumed"];
                    };
                };
                /** @description No valid bearer token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not the admin token (an app key) */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        Pause: {
            /** @example receiver migrating to the new cluster */
            note?: string | null;
            /**
             * @description The timer resumes by itself at this time (once, cluster-wide); absent or null: until enabled.
             * @example 2026-12-01T09:00:00Z
             */
            until?: string;
        };
        BulkResult: {
            /** @enum {string} */
            action: "pause" | "resume" | "trigger";
            /** @description The batch the audit log files each change under (GET /audit?batchId=). */
            batchId: string | null;
            /** @description How many distinct timers were selected. */
            selected: number;
            /** @description How many it paused, resumed or ran now. */
            changed: number;
            /** @description Those left as they were: already paused (pause), already active or completed (resume). */
            unchanged: number[];
        };
        Error: {
            error: {
                /** @example INVALID_CRON */
                code: string;
                message: string;
                /** @description What exactly is wrong, by field; empty when the message says it all */
                details: {
                    path: string;
                    message: string;
                }[];
            };
        };
        /** @description note and until apply to a pause only. Every timer is checked first: one the key may not use refuses the whole batch. */
        BulkAction: components["schemas"]["Pause"] & {
            /**
             * @description pause (with the note and until, the same for each), resume, or trigger (run now).
             * @enum {string}
             */
            action: "pause" | "resume" | "trigger";
            /**
             * @description The timers, 1 to 1000.
             * @example [
             *       12,
             *       13,
             *       21
             *     ]
             */
            ids: number[];
        };
        Timer: {
            /** @example 42 */
            id: number;
            /** @example billing */
            app: string;
            /** @example nightly-invoice */
            name: string;
            /**
             * @description Null for a one-shot timer.
             * @example 0 30 2 * * *
             */
            cron: string | null;
            /** @description A one-shot timer's time (ISO-8601); null for a cron or interval timer. */
            at: string | null;
            /**
             * @description An interval timer's period; null for a cron or one-shot timer.
             * @example 90m
             */
            every: string | null;
            /**
             * @description An interval timer's offset from the epoch; null for other timers.
             * @example 0s
             */
            offset: string | null;
            /**
             * @description The cron with its H values resolved for this timer (the same on every node); null without a cron.
             * @example 0 17 * * * *
             */
            resolvedCron: string | null;
            jitterMs: number;
            /** @example Asia/Shanghai */
            timezone: string;
            callback: {
                url: string;
                /** @enum {string} */
                method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE" | "HEAD";
                headers: {
                    [key: string]: string;
                };
                body: string | null;
                timeoutMs: number;
            };
            retry: {
                maxAttempts: number;
                backoffMs: number;
            };
            /** @enum {string} */
            misfirePolicy: "fire_once" | "fire_all" | "skip";
            misfireThresholdMs: number;
            startAt: string | null;
            endAt: string | null;
            maxRuns: number | null;
            /**
             * @description What a run does while the previous run of the timer (retries included) is still in flight: allow (call it), skip (record it skipped), buffer_one (let one wait, skip the rest).
             * @enum {string}
             */
            overlapPolicy: "allow" | "skip" | "buffer_one";
            notify: {
                url: string;
                on: ("failed" | "missed")[];
            } | null;
            /**
             * @example {
             *       "team": "payments"
             *     }
             */
            labels: {
                [key: string]: string;
            };
            description: string | null;
            /**
             * @description completed: a one-shot that has fired, or a timer past its endAt or maxRuns.
             * @enum {string}
             */
            status: "inactive" | "active" | "completed";
            /** @description Why it was disabled (the disable's note, or an auto-pause's). */
            pausedNote: string | null;
            /** @description When it was disabled; null while active. */
            pausedAt: string | null;
            /** @description When it resumes by itself; null: until enabled. */
            pausedUntil: string | null;
            autoPause: {
                afterConsecutiveFailures: number;
            } | null;
            skipCalendars: string[];
            /** @example 2026-11-21T10:00:00.000Z */
            createdAt: string;
            /** @example 2026-11-21T10:00:00.000Z */
            updatedAt: string;
        };
        CreateTimer: {
            /**
             * @description The business system that owns the timer.
             * @example billing
             */
            app: string;
            /**
             * @description Unique within the app.
             * @example nightly-invoice
             */
            name: string;
            /**
             * @description Cron with 5 fields (minute precision) or 6 (seconds first). Names, ranges, steps, L, # and W (nearest weekday, LW) are supported, and H, H(a-b), H/n: a value chosen by a stable hash of the app and timer name (resolvedCron shows it).
             * @example 0 30 2 * * *
             */
            cron?: string | null;
            /**
             * @description Instead of cron: a one-shot timer firing once, at this time; then it is completed.
             * @example 2026-12-01T09:00:00Z
             */
            at?: string;
            /**
             * @description Instead of cron or at: an interval timer, running at epoch + offset + k·every in real time (no time zone, no DST). A count and a unit (s, m, h, d; 1h30m) or an ISO-8601 duration (PT90M); at least 1s.
             * @example 90m
             */
            every?: string;
            /**
             * @description With every: where the runs fall within each period, from the epoch; shorter than every (default 0s).
             * @example 15m
             */
            offset?: string;
            /**
             * @description Shifts each run by a stable offset in [0, jitterMs) from its nominal instant, derived from the timer id and that instant (0 = none; at most 1 h and the schedule's shortest gap). X-Xtimer-Scheduled-At carries the shifted instant, X-Xtimer-Nominal-At the nominal one.
             * @example 59000
             */
            jitterMs?: number;
            /**
             * @default UTC
             * @example Asia/Shanghai
             */
            timezone?: string;
            callback: components["schemas"]["Callback"];
            retry?: components["schemas"]["RetryPolicy"];
            /**
             * @default fire_once
             * @enum {string}
             */
            misfirePolicy?: "fire_once" | "fire_all" | "skip";
            /** @default 60000 */
            misfireThresholdMs?: number;
            /**
             * @description No run before this time.
             * @example 2026-12-01T09:00:00Z
             */
            startAt?: string;
            /**
             * @description No run at or after this time; then it is completed.
             * @example 2026-12-01T09:00:00Z
             */
            endAt?: string;
            /** @description At most this many scheduled runs; then it is completed. */
            maxRuns?: number | null;
            /**
             * @description What a run does while the previous run of the timer (retries included) is still in flight: allow (call it), skip (record it skipped), buffer_one (let one wait, skip the rest).
             * @default allow
             * @enum {string}
             */
            overlapPolicy?: "allow" | "skip" | "buffer_one";
            /** @description Where failed or missed runs are reported (default: the app's). */
            notify?: {
                /**
                 * @description http(s), without user:password@. Loopback and private targets are refused (TARGET_BLOCKED).
                 * @example https://billing.internal/hooks/run
                 */
                url: string;
                /**
                 * @default [
                 *       "failed",
                 *       "missed"
                 *     ]
                 */
                on?: ("failed" | "missed")[];
            } | null;
            /**
             * @description Key/value pairs to find the timer by (list filter label=key:value); at most 20.
             * @default {}
             * @example {
             *       "team": "payments",
             *       "env": "prod"
             *     }
             */
            labels?: {
                [key: string]: string;
            };
            /**
             * @description At most 1 KiB.
             * @example Bills every customer at 02:30 Shanghai time.
             */
            description?: string | null;
            autoPause?: components["schemas"]["AutoPause"];
            /**
             * @description The app's calendars whose dates the timer skips: no run is planned on a listed date, read in the timer's zone (an interval's: UTC unless it names one). A calendar the app lacks: 400 CALENDAR_NOT_FOUND.
             * @example [
             *       "us-holidays"
             *     ]
             */
            skipCalendars?: string[];
            /**
             * @default inactive
             * @enum {string}
             */
            status?: "inactive" | "active";
        };
        Callback: {
            /**
             * @description http(s), without user:password@. Loopback and private targets are refused (TARGET_BLOCKED).
             * @example https://billing.internal/hooks/run
             */
            url: string;
            /**
             * @default POST
             * @enum {string}
             */
            method?: "GET" | "POST" | "PUT" | "PATCH" | "DELETE" | "HEAD";
            /**
             * @description A map of header name to string value; at most 64 headers, 8 KiB in total.
             * @default {}
             * @example {
             *       "content-type": "application/json"
             *     }
             */
            headers?: {
                [key: string]: string;
            };
            /**
             * @description Sent as given, never re-encoded. At most 64 KiB.
             * @example {"k":1}
             */
            body?: string | null;
            timeoutMs?: number;
        };
        /**
         * @description Attempts in all (1 = no retry); exponential backoff with jitter from backoffMs.
         * @default {
         *       "maxAttempts": 3,
         *       "backoffMs": 1000
         *     }
         */
        RetryPolicy: {
            /** @default 3 */
            maxAttempts?: number;
            /** @default 1000 */
            backoffMs?: number;
        };
        /** @description Disable the timer after this many scheduled runs in a row end failed, with the note "auto-paused after N consecutive failures" and a timer.paused notification. */
        AutoPause: {
            afterConsecutiveFailures: number;
        } | null;
        TimerBatch: {
            /** @description The timers created, in the order sent. */
            items: components["schemas"]["Timer"][];
        };
        CreateTimerBatch: {
            timers: components["schemas"]["CreateTimer"][];
        };
        TimerPage: {
            items: components["schemas"]["Timer"][];
            nextCursor: string | null;
        };
        /** @description Any subset of fields; callback and retry merge field by field, labels are replaced whole. A cron, every or at turns the timer into that kind (the other two are cleared); offset alone moves an interval timer; null clears startAt, endAt, maxRuns, notify and description. */
        UpdateTimer: {
            /**
             * @description Unique within the app.
             * @example nightly-invoice
             */
            name?: string;
            /**
             * @description Cron with 5 fields (minute precision) or 6 (seconds first). Names, ranges, steps, L, # and W (nearest weekday, LW) are supported, and H, H(a-b), H/n: a value chosen by a stable hash of the app and timer name (resolvedCron shows it).
             * @example 0 30 2 * * *
             */
            cron?: string;
            /** @example Asia/Shanghai */
            timezone?: string;
            callback?: {
                /**
                 * @description http(s), without user:password@. Loopback and private targets are refused (TARGET_BLOCKED).
                 * @example https://billing.internal/hooks/run
                 */
                url?: string;
                /** @enum {string} */
                method?: "GET" | "POST" | "PUT" | "PATCH" | "DELETE" | "HEAD";
                /**
                 * @description A map of header name to string value; at most 64 headers, 8 KiB in total.
                 * @example {
                 *       "content-type": "application/json"
                 *     }
                 */
                headers?: {
                    [key: string]: string;
                };
                /**
                 * @description Sent as given, never re-encoded. At most 64 KiB.
                 * @example {"k":1}
                 */
                body?: string | null;
                timeoutMs?: number;
            };
            retry?: {
                maxAttempts?: number;
                backoffMs?: number;
            };
            /** @enum {string} */
            misfirePolicy?: "fire_once" | "fire_all" | "skip";
            misfireThresholdMs?: number;
            /** @example 2026-12-01T09:00:00Z */
            at?: string;
            /**
             * @description Instead of cron or at: an interval timer, running at epoch + offset + k·every in real time (no time zone, no DST). A count and a unit (s, m, h, d; 1h30m) or an ISO-8601 duration (PT90M); at least 1s.
             * @example 90m
             */
            every?: string;
            /**
             * @description With every: where the runs fall within each period, from the epoch; shorter than every (default 0s).
             * @example 15m
             */
            offset?: string;
            /**
             * @description Shifts each run by a stable offset in [0, jitterMs) from its nominal instant, derived from the timer id and that instant (0 = none; at most 1 h and the schedule's shortest gap). X-Xtimer-Scheduled-At carries the shifted instant, X-Xtimer-Nominal-At the nominal one.
             * @example 59000
             */
            jitterMs?: number;
            /** @example 2026-12-01T09:00:00Z */
            startAt?: string;
            /** @example 2026-12-01T09:00:00Z */
            endAt?: string;
            maxRuns?: number | null;
            /**
             * @description What a run does while the previous run of the timer (retries included) is still in flight: allow (call it), skip (record it skipped), buffer_one (let one wait, skip the rest).
             * @enum {string}
             */
            overlapPolicy?: "allow" | "skip" | "buffer_one";
            notify?: components["schemas"]["Notify"];
            /**
             * @description Replaces the labels whole ({} removes them).
             * @example {
             *       "team": "payments",
             *       "env": "prod"
             *     }
             */
            labels?: {
                [key: string]: string;
            };
            /**
             * @description At most 1 KiB.
             * @example Bills every customer at 02:30 Shanghai time.
             */
            description?: string | null;
            autoPause?: components["schemas"]["AutoPause"];
            /**
             * @description The app's calendars whose dates the timer skips: no run is planned on a listed date, read in the timer's zone (an interval's: UTC unless it names one). A calendar the app lacks: 400 CALENDAR_NOT_FOUND.
             * @example [
             *       "us-holidays"
             *     ]
             */
            skipCalendars?: string[];
        };
        /** @description A POST of {type: run.failed | run.missed, timerId, app, taskId, runAt, attempts, httpStatus, error}, signed like callbacks, for each run that finally ends in one of the outcomes. */
        Notify: {
            /**
             * @description http(s), without user:password@. Loopback and private targets are refused (TARGET_BLOCKED).
             * @example https://billing.internal/hooks/run
             */
            url: string;
            /**
             * @default [
             *       "failed",
             *       "missed"
             *     ]
             */
            on?: ("failed" | "missed")[];
        } | null;
        Calendar: {
            app: string;
            name: string;
            dates: string[];
            description: string | null;
            createdAt: string;
            updatedAt: string;
        };
        PutCalendar: {
            /**
             * @example [
             *       "2026-12-25",
             *       "2027-01-01"
             *     ]
             */
            dates: string[];
            /**
             * @description At most 1 KiB.
             * @example Bills every customer at 02:30 Shanghai time.
             */
            description?: string | null;
        };
        AppTimersChanged: {
            app: string;
            /** @description How many timers this paused or resumed. */
            changed: number;
        };
        TaskPage: {
            items: components["schemas"]["Task"][];
            nextCursor: string | null;
        };
        Task: {
            /**
             * @description The task key: timerId_runAtMs.
             * @example 42_1795304060000
             */
            id: string;
            timerId: number;
            /** @example 2026-11-22T10:00:00.000Z */
            runAt: string;
            /** @enum {string} */
            status: "pending" | "running" | "succeeded" | "failed" | "skipped" | "missed";
            /**
             * @description What made the run: its schedule, a run now, a retry, or a backfill.
             * @enum {string}
             */
            trigger: "schedule" | "manual" | "retry" | "backfill";
            attempts: number;
            httpStatus: number | null;
            output: string | null;
            error: string | null;
            /** @description When the latest attempt was sent. */
            firedAt: string | null;
            /** @description When the first attempt was sent. */
            firstFiredAt: string | null;
            /** @description How late the first call left: firstFiredAt − runAt; null if never called, and for a backfill's runs (past by design). */
            latencyMs: number | null;
            /** @description For a backfill's run: how long after the backfill began its first call left (in place of latencyMs); null for any other run. */
            sinceBackfillStartMs: number | null;
            durationMs: number | null;
        };
        QueuedRun: {
            /** @example 42_1795304060000 */
            id: string;
            timerId: number;
            runAt: string;
            /** @enum {string} */
            status: "pending";
            /** @enum {string} */
            trigger: "manual" | "retry";
        };
        RunDetail: {
            task: components["schemas"]["Task"];
            /** @description Rebuilt from the timer's callback as it is now and the run (task id, instant, attempt, trigger): the request builder is deterministic, so no request is stored. Every attempt sends it with its own x-xtimer-attempt (and, when signed, its own webhook-* headers); the headers shown are the latest attempt's. */
            request: {
                /** @example POST */
                method: string;
                /** @example https://example.com/hooks/nightly */
                url: string;
                /**
                 * @description The headers of the latest attempt, credential values (authorization, tokens, keys, cookies, signatures) as ***.
                 * @example {
                 *       "content-type": "application/json",
                 *       "authorization": "***",
                 *       "x-xtimer-attempt": "1"
                 *     }
                 */
                headers: {
                    [key: string]: string;
                };
                body: string | null;
                /** @description The body’s size in UTF-8 bytes. */
                bodyBytes: number;
                /** @description The app signs its calls: each attempt adds webhook-id, webhook-timestamp and webhook-signature. */
                signed: boolean;
            };
            /** @description Each attempt’s answer kept, oldest first: the last four attempts at most (three earlier beside the latest). A call still in flight has none yet. */
            attempts: {
                attempt: number;
                sentAt: string | null;
                httpStatus: number | null;
                /**
                 * @description The response headers kept: 512 bytes of names and values at most, each value cut at 128 characters, connection headers left out, credential values (set-cookie, tokens, signatures) as ***. null: none kept (no response, or a run from before headers were kept).
                 * @example {
                 *       "content-type": "text/plain",
                 *       "x-request-id": "r-7",
                 *       "set-cookie": "***"
                 *     }
                 */
                headers: {
                    [key: string]: string;
                } | null;
                /** @description The start of the response body, as kept (1,024 characters at most). */
                output: string | null;
                /** @description The size of what is kept of the body, in UTF-8 bytes. */
                outputBytes: number;
                /** @description The whole response body’s size in bytes: as read when read whole, else its Content-Length; null when neither is known. */
                bodyBytes: number | null;
                durationMs: number | null;
                error: string | null;
            }[];
            /** @description Attempts made whose answers are not kept (older than those listed), besides one in flight. */
            attemptsNotKept: number;
            /** @description The latest answer kept (the last of attempts); null before the first answer. */
            latest: {
                attempt: number;
                sentAt: string | null;
                httpStatus: number | null;
                /**
                 * @description The response headers kept: 512 bytes of names and values at most, each value cut at 128 characters, connection headers left out, credential values (set-cookie, tokens, signatures) as ***. null: none kept (no response, or a run from before headers were kept).
                 * @example {
                 *       "content-type": "text/plain",
                 *       "x-request-id": "r-7",
                 *       "set-cookie": "***"
                 *     }
                 */
                headers: {
                    [key: string]: string;
                } | null;
                /** @description The start of the response body, as kept (1,024 characters at most). */
                output: string | null;
                /** @description The size of what is kept of the body, in UTF-8 bytes. */
                outputBytes: number;
                /** @description The whole response body’s size in bytes: as read when read whole, else its Content-Length; null when neither is known. */
                bodyBytes: number | null;
                durationMs: number | null;
                error: string | null;
            } | null;
        };
        BackfillPreview: {
            /** @description The schedule's instants in the range. */
            runs: number;
            /** @description Those it would send: instants already in the run history are left alone. */
            planned: number;
        };
        StartBackfill: {
            /**
             * @description The first instant of the range (included).
             * @example 2026-12-01T09:00:00Z
             */
            from: string;
            /**
             * @description The end of the range (excluded); not after now.
             * @example 2026-12-02T09:00:00Z
             */
            to: string;
            /**
             * @description What a backfill run does while the timer's previous run is in flight (default: the timer's policy).
             * @enum {string}
             */
            overlapPolicy?: "allow" | "skip" | "buffer_one";
        };
        Backfill: {
            /** @example 7 */
            id: number;
            timerId: number;
            from: string;
            to: string;
            /** @enum {string|null} */
            overlapPolicy: "allow" | "skip" | "buffer_one" | null;
            /**
             * @description sending (queuing its runs at BACKFILL_RATE), sent (all queued, waiting for outcomes), completed (every run ended), cancelled
             * @enum {string}
             */
            status: "sending" | "sent" | "completed" | "cancelled";
            /** @description The schedule's instants in the range. */
            runs: number;
            /** @description Runs the backfill made: instants already in the run history are left alone. */
            planned: number;
            /** @description Runs queued so far. */
            sent: number;
            /** @description Runs that have ended (succeeded, failed, skipped or missed). */
            done: number;
            failed: number;
            progress: components["schemas"]["BackfillProgress"];
            createdBy: string | null;
            createdAt: string;
        };
        /** @description Its runs by status. */
        BackfillProgress: {
            pending: number;
            running: number;
            succeeded: number;
            failed: number;
            skipped: number;
            missed: number;
        };
        Preview: {
            /** @description Absent for an unsaved schedule. */
            timerId?: number;
            timezone: string;
            /**
             * @example [
             *       "2026-11-22T02:30:00.000+08:00"
             *     ]
             */
            items: string[];
        };
        ExplainedPreview: {
            timerId: number;
            timezone: string;
            items: {
                at: string;
                skippedBy: string[] | null;
            }[];
        };
        IssuedApp: components["schemas"]["App"] & {
            /**
             * @description Send as Authorization: Bearer <apiKey>. Shown only here.
             * @example xtk_3q2-…
             */
            apiKey?: string;
            /**
             * @description Verifies the webhook-signature of callbacks (Standard Webhooks). Shown only here.
             * @example whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw
             */
            signingSecret?: string;
        };
        App: {
            /** @example billing */
            app: string;
            /**
             * @description The current API key’s public id: the audit log names the changes made with it so.
             * @example billing:3f9a1c2b4d5e
             */
            keyId: string;
            createdAt: string;
            updatedAt: string;
            /** @description Until when the key replaced by the last key rotation still works. */
            previousKeyValidUntil: string | null;
            /** @description Until when callbacks are also signed with the secret replaced by the last rotation. */
            previousSecretValidUntil: string | null;
            /** @description The default failure notification of timers that set none. */
            notify: {
                url: string;
                on: string[];
            } | null;
        };
        CreateApp: {
            /**
             * @description The business system that owns the timer.
             * @example billing
             */
            app: string;
        };
        AppList: {
            items: components["schemas"]["App"][];
        };
        UpdateApp: {
            notify: components["schemas"]["Notify"] & unknown;
        };
        RotateApp: {
            /**
             * @description key: a new API key; secret: a new signing secret.
             * @enum {string}
             */
            rotate: "key" | "secret";
            /** @description How long the replaced key or secret stays valid (default APP_KEY_GRACE_SECONDS; 0 revokes it at once). */
            graceSeconds?: number;
        };
        /** @description The whole definition: fields left out take their defaults, as on create (a timer without status is inactive). */
        UpsertTimer: {
            /**
             * @description If given, the path's name.
             * @example nightly-invoice
             */
            name?: string;
            /**
             * @description Cron with 5 fields (minute precision) or 6 (seconds first). Names, ranges, steps, L, # and W (nearest weekday, LW) are supported, and H, H(a-b), H/n: a value chosen by a stable hash of the app and timer name (resolvedCron shows it).
             * @example 0 30 2 * * *
             */
            cron?: string | null;
            /**
             * @description Instead of cron: a one-shot timer firing once, at this time; then it is completed.
             * @example 2026-12-01T09:00:00Z
             */
            at?: string;
            /**
             * @description Instead of cron or at: an interval timer, running at epoch + offset + k·every in real time (no time zone, no DST). A count and a unit (s, m, h, d; 1h30m) or an ISO-8601 duration (PT90M); at least 1s.
             * @example 90m
             */
            every?: string;
            /**
             * @description With every: where the runs fall within each period, from the epoch; shorter than every (default 0s).
             * @example 15m
             */
            offset?: string;
            /**
             * @description Shifts each run by a stable offset in [0, jitterMs) from its nominal instant, derived from the timer id and that instant (0 = none; at most 1 h and the schedule's shortest gap). X-Xtimer-Scheduled-At carries the shifted instant, X-Xtimer-Nominal-At the nominal one.
             * @example 59000
             */
            jitterMs?: number;
            /**
             * @default UTC
             * @example Asia/Shanghai
             */
            timezone?: string;
            callback: components["schemas"]["Callback"];
            retry?: components["schemas"]["RetryPolicy"];
            /**
             * @default fire_once
             * @enum {string}
             */
            misfirePolicy?: "fire_once" | "fire_all" | "skip";
            /** @default 60000 */
            misfireThresholdMs?: number;
            /**
             * @description No run before this time.
             * @example 2026-12-01T09:00:00Z
             */
            startAt?: string;
            /**
             * @description No run at or after this time; then it is completed.
             * @example 2026-12-01T09:00:00Z
             */
            endAt?: string;
            /** @description At most this many scheduled runs; then it is completed. */
            maxRuns?: number | null;
            /**
             * @description What a run does while the previous run of the timer (retries included) is still in flight: allow (call it), skip (record it skipped), buffer_one (let one wait, skip the rest).
             * @default allow
             * @enum {string}
             */
            overlapPolicy?: "allow" | "skip" | "buffer_one";
            /** @description Where failed or missed runs are reported (default: the app's). */
            notify?: {
                /**
                 * @description http(s), without user:password@. Loopback and private targets are refused (TARGET_BLOCKED).
                 * @example https://billing.internal/hooks/run
                 */
                url: string;
                /**
                 * @default [
                 *       "failed",
                 *       "missed"
                 *     ]
                 */
                on?: ("failed" | "missed")[];
            } | null;
            /**
             * @description Key/value pairs to find the timer by (list filter label=key:value); at most 20.
             * @default {}
             * @example {
             *       "team": "payments",
             *       "env": "prod"
             *     }
             */
            labels?: {
                [key: string]: string;
            };
            /**
             * @description At most 1 KiB.
             * @example Bills every customer at 02:30 Shanghai time.
             */
            description?: string | null;
            autoPause?: components["schemas"]["AutoPause"];
            /**
             * @description The app's calendars whose dates the timer skips: no run is planned on a listed date, read in the timer's zone (an interval's: UTC unless it names one). A calendar the app lacks: 400 CALENDAR_NOT_FOUND.
             * @example [
             *       "us-holidays"
             *     ]
             */
            skipCalendars?: string[];
            /**
             * @default inactive
             * @enum {string}
             */
            status?: "inactive" | "active";
        };
        ApplyResult: {
            /** @description Each timer of the set in the order sent, then (with prune) the deletions. */
            plan: components["schemas"]["ApplyStep"][];
            /** @description false for a dry run. */
            applied: boolean;
            /**
             * @description The id of this plan: send it back as `planId` to apply this plan and no other.
             * @example 3f9a0c2d71be4e58
             */
            planId: string;
            /** @description The audit log entries of an apply that changed something carry this batchId. */
            batchId?: string;
        };
        ApplyStep: {
            name: string;
            /** @enum {string} */
            action: "create" | "update" | "delete" | "unchanged";
            /**
             * @description An update's changed fields (callback.url, cron, …), credentials masked.
             * @example {
             *       "cron": {
             *         "before": "0 * * * *",
             *         "after": "*\/30 * * * *"
             *       }
             *     }
             */
            changes?: {
                [key: string]: {
                    before?: unknown;
                    after?: unknown;
                };
            };
        };
        Apply: {
            /** @description The app's whole set of timers, each name once. */
            timers: components["schemas"]["ApplyTimer"][];
            /**
             * @description Delete the app's timers the set leaves out.
             * @default false
             */
            prune?: boolean;
            /**
             * @description Only plan: change nothing.
             * @default false
             */
            dryRun?: boolean;
            /**
             * @description Carry out only the plan of this id, as a dry run answered it: if the app's timers or the set changed since, 412 VERSION_CONFLICT and nothing changes.
             * @example 3f9a0c2d71be4e58
             */
            planId?: string;
        };
        ApplyTimer: {
            /**
             * @description Unique within the app.
             * @example nightly-invoice
             */
            name: string;
            /**
             * @description Cron with 5 fields (minute precision) or 6 (seconds first). Names, ranges, steps, L, # and W (nearest weekday, LW) are supported, and H, H(a-b), H/n: a value chosen by a stable hash of the app and timer name (resolvedCron shows it).
             * @example 0 30 2 * * *
             */
            cron?: string | null;
            /**
             * @description Instead of cron: a one-shot timer firing once, at this time; then it is completed.
             * @example 2026-12-01T09:00:00Z
             */
            at?: string;
            /**
             * @description Instead of cron or at: an interval timer, running at epoch + offset + k·every in real time (no time zone, no DST). A count and a unit (s, m, h, d; 1h30m) or an ISO-8601 duration (PT90M); at least 1s.
             * @example 90m
             */
            every?: string;
            /**
             * @description With every: where the runs fall within each period, from the epoch; shorter than every (default 0s).
             * @example 15m
             */
            offset?: string;
            /**
             * @description Shifts each run by a stable offset in [0, jitterMs) from its nominal instant, derived from the timer id and that instant (0 = none; at most 1 h and the schedule's shortest gap). X-Xtimer-Scheduled-At carries the shifted instant, X-Xtimer-Nominal-At the nominal one.
             * @example 59000
             */
            jitterMs?: number;
            /**
             * @default UTC
             * @example Asia/Shanghai
             */
            timezone?: string;
            callback: components["schemas"]["Callback"];
            retry?: components["schemas"]["RetryPolicy"];
            /**
             * @default fire_once
             * @enum {string}
             */
            misfirePolicy?: "fire_once" | "fire_all" | "skip";
            /** @default 60000 */
            misfireThresholdMs?: number;
            /**
             * @description No run before this time.
             * @example 2026-12-01T09:00:00Z
             */
            startAt?: string;
            /**
             * @description No run at or after this time; then it is completed.
             * @example 2026-12-01T09:00:00Z
             */
            endAt?: string;
            /** @description At most this many scheduled runs; then it is completed. */
            maxRuns?: number | null;
            /**
             * @description What a run does while the previous run of the timer (retries included) is still in flight: allow (call it), skip (record it skipped), buffer_one (let one wait, skip the rest).
             * @default allow
             * @enum {string}
             */
            overlapPolicy?: "allow" | "skip" | "buffer_one";
            /** @description Where failed or missed runs are reported (default: the app's). */
            notify?: {
                /**
                 * @description http(s), without user:password@. Loopback and private targets are refused (TARGET_BLOCKED).
                 * @example https://billing.internal/hooks/run
                 */
                url: string;
                /**
                 * @default [
                 *       "failed",
                 *       "missed"
                 *     ]
                 */
                on?: ("failed" | "missed")[];
            } | null;
            /**
             * @description Key/value pairs to find the timer by (list filter label=key:value); at most 20.
             * @default {}
             * @example {
             *       "team": "payments",
             *       "env": "prod"
             *     }
             */
            labels?: {
                [key: string]: string;
            };
            /**
             * @description At most 1 KiB.
             * @example Bills every customer at 02:30 Shanghai time.
             */
            description?: string | null;
            autoPause?: components["schemas"]["AutoPause"];
            /**
             * @description The app's calendars whose dates the timer skips: no run is planned on a listed date, read in the timer's zone (an interval's: UTC unless it names one). A calendar the app lacks: 400 CALENDAR_NOT_FOUND.
             * @example [
             *       "us-holidays"
             *     ]
             */
            skipCalendars?: string[];
            /**
             * @default inactive
             * @enum {string}
             */
            status?: "inactive" | "active";
        };
        AuditPage: {
            items: components["schemas"]["AuditEntry"][];
            nextCursor: string | null;
        };
        AuditEntry: {
            id: number;
            /** @example 2026-11-22T10:05:03.123Z */
            at: string;
            /**
             * @description admin, open (no admin token configured), or the keyId of the app key used.
             * @example billing:3f9a1c2b4d5e
             */
            actor: string;
            /** @enum {string} */
            action: "create" | "update" | "enable" | "disable" | "delete" | "trigger" | "retry" | "app_create" | "app_update" | "key_rotate" | "secret_rotate" | "calendar_put" | "calendar_delete" | "backfill" | "backfill_cancel" | "pause_all" | "resume_all";
            app: string;
            timerId: number | null;
            batchId: string | null;
            /** @description The fields the change touched (a timer’s fields by name, nested ones dotted: callback.url), masked: header values but a few (content-type, accept, user-agent, …), URL query values and token-like paths as ***, a callback body as {bytes, sha256}. */
            before: {
                [key: string]: unknown;
            } | null;
            /** @description The fields the change touched (a timer’s fields by name, nested ones dotted: callback.url), masked: header values but a few (content-type, accept, user-agent, …), URL query values and token-like paths as ***, a callback body as {bytes, sha256}. */
            after: {
                [key: string]: unknown;
            } | null;
        };
        ServicePauseState: components["schemas"]["ServicePaused"] | components["schemas"]["ServiceRunning"];
        /** @description Everything is paused: scheduled runs and backfills are recorded skipped, not called; run now and retry still go. */
        ServicePaused: {
            /** @enum {boolean} */
            paused: true;
            /** @example INC-1234: payments receiver down */
            note: string;
            /**
             * @description When the pause began (a new note keeps it).
             * @example 2026-11-22T10:05:03.123Z
             */
            pausedAt: string;
            /**
             * @description Who paused, or last changed the note: admin, or open (no admin token configured).
             * @example admin
             */
            pausedBy: string;
        };
        /** @description Nothing is paused: runs are called as scheduled. */
        ServiceRunning: {
            /** @enum {boolean} */
            paused: false;
        };
        PauseAll: {
            /**
             * @description Why (1-1024 characters, one line). Every run skipped meanwhile records "paused: <note>".
             * @example INC-1234: payments receiver down
             */
            note: string;
        };
        ServiceResumed: {
            /** @enum {boolean} */
            paused: false;
            /** @description The pause this resume ended; null if nothing was paused. */
            ended: {
                /** @example INC-1234: payments receiver down */
                note: string;
                /**
                 * @description When the pause began (a new note keeps it).
                 * @example 2026-11-22T10:05:03.123Z
                 */
                pausedAt: string;
                /**
                 * @description Who paused, or last changed the note: admin, or open (no admin token configured).
                 * @example admin
                 */
                pausedBy: string;
            } | null;
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export type operations = Record<string, never>;
