import { z } from 'zod';

/**
 * The Go xTimer's JSON types, written from its source (github.com/xiaoxuxiansheng/xtimer,
 * common/model/vo/{base,timer,task}.go and common/consts/timer.go), as strict schemas:
 * exact keys, the JSON type encoding/json reads into each Go field, the enum values.
 * An answer these refuse is one a Go client would fail to decode or would misread.
 */

/** Go's uint: a whole JSON number, not negative (json.Unmarshal refuses a fraction, a sign or a string). */
const uint = z.number().int().nonnegative();
const int = z.number().int();
const int32 = int.min(-(2 ** 31)).max(2 ** 31 - 1);
/** time.Time's UnmarshalJSON: an RFC 3339 string. */
const rfc3339 = z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/);
/** A field tagged `omitempty`: absent, or present and not empty. */
const nonEmpty = z.string().min(1);

/** consts.TimerStatus: Unabled 1, Enabled 2. */
export const GoTimerStatus = { Unabled: 1, Enabled: 2 } as const;
/** consts.TaskStatus, and the two values xtimer adds (docs/migrating-from-go-xtimer.md). */
export const GoTaskStatus = {
  NotRunned: 0,
  Running: 1,
  Successed: 2,
  Failed: 3,
  Skipped: 4,
  Missed: 5,
} as const;

/** vo.CodeMsg. `Err error \`json:"err"\``: only null decodes into an interface field. */
const codeMsgShape = { code: int32, msg: z.string(), err: z.null() };
export const CodeMsg = z.strictObject(codeMsgShape);

/** vo.NotifyHTTPParam. */
export const NotifyHTTPParam = z.strictObject({
  method: nonEmpty.optional(),
  url: nonEmpty.optional(),
  header: z.record(z.string(), z.string()).optional(),
  body: nonEmpty.optional(),
});

/** vo.Timer: every field but status is omitempty. */
export const Timer = z.strictObject({
  id: uint.positive().optional(),
  app: nonEmpty.optional(),
  name: nonEmpty.optional(),
  status: z.literal(Object.values(GoTimerStatus)),
  cron: nonEmpty.optional(),
  notifyHTTPParam: NotifyHTTPParam.optional(),
});

/** vo.Task. */
export const Task = z.strictObject({
  id: uint,
  app: z.string(),
  timerID: uint,
  output: z.string(),
  runTimer: rfc3339,
  costTime: int,
  status: z.literal(Object.values(GoTaskStatus)),
});

/** vo.CreateTimerResp (CodeMsg embedded: its fields inline). */
export const CreateTimerResp = z.strictObject({ ...codeMsgShape, id: uint });
/** vo.GetTimerResp. */
export const GetTimerResp = z.strictObject({ ...codeMsgShape, data: Timer.nullable() });
/** vo.GetTimersResp. */
export const GetTimersResp = z.strictObject({ ...codeMsgShape, data: z.array(Timer).nullable(), total: int });
/** vo.GetTasksResp. */
export const GetTasksResp = z.strictObject({ ...codeMsgShape, total: int, data: z.array(Task).nullable() });

/** Decodes `body` into `struct`, failing with every field the decoder would refuse. */
export function decode<T extends z.ZodTypeAny>(struct: T, body: unknown): z.output<T> {
  const result = struct.safeParse(body);
  if (!result.success) {
    throw new Error(`${JSON.stringify(body)} does not decode: ${z.prettifyError(result.error)}`);
  }
  return result.data;
}

/**
 * An error answer as a Go client sees it: it decodes into vo.CodeMsg, and into the route's
 * own response struct too (Go leaves the absent fields at their zero values).
 */
export function decodeError(routeStruct: z.ZodObject, body: unknown): z.output<typeof CodeMsg> {
  decode(routeStruct.partial(), body);
  const e = decode(CodeMsg, body);
  if (e.code === 0) throw new Error(`${JSON.stringify(body)} is an error answered with code 0`);
  return e;
}
