/** A promise awaited a step later: a failure meanwhile is not an unhandled rejection (awaiting it still throws). */
export function awaitedLater<T>(p: Promise<T>): Promise<T> {
  p.catch(() => undefined);
  return p;
}
