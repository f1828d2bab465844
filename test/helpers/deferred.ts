/** A promise the test settles by hand: `resolve()` ends what waits on `promise`. */
export function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}
