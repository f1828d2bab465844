/**
 * An If-Match condition on a timer's version (its ETag): any existing version (`*`), or
 * one of the listed versions. A change whose condition fails changes nothing.
 */
export type VersionMatch = { any: true } | { versions: readonly number[] };

export function matchesVersion(condition: VersionMatch, version: number): boolean {
  return 'any' in condition || condition.versions.includes(version);
}
