import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The documents link to one another and to files of the repository by relative paths: a
 * moved section or a renamed heading must not leave a reader at a dead link. And no
 * document may point outside the repository (`../shared/`), which a clone does not have.
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SKIP = new Set(['node_modules', 'dist', '.git', 'coverage', 'test-results']);

function markdownFiles(dir = ROOT): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (SKIP.has(entry.name)) return [];
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return markdownFiles(path);
    return entry.name.endsWith('.md') ? [path] : [];
  });
}

/** The text a reader sees as prose: fenced blocks dropped, inline code blanked. */
function prose(markdown: string): string {
  return markdown.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, 'code');
}

/** A heading's anchor as GitHub writes it: lower case, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
  return heading
    .replace(/`/g, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

const anchorsCache = new Map<string, Set<string>>();
function anchorsOf(file: string): Set<string> {
  let anchors = anchorsCache.get(file);
  if (!anchors) {
    anchors = new Set();
    const seen = new Map<string, number>();
    const text = readFileSync(file, 'utf8').replace(/^```[\s\S]*?^```/gm, '');
    for (const [, heading] of text.matchAll(/^#{1,6} +(.+?) *#*$/gm)) {
      const base = slug(heading!);
      const n = seen.get(base) ?? 0;
      seen.set(base, n + 1);
      anchors.add(n === 0 ? base : `${base}-${n}`);
    }
    anchorsCache.set(file, anchors);
  }
  return anchors;
}

/** Relative link targets: inline links and reference definitions, not URLs with a scheme. */
function relativeLinks(markdown: string): string[] {
  const text = prose(markdown);
  const inline = [...text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => m[1]!);
  const defined = [...text.matchAll(/^ {0,3}\[[^\]]+\]:\s+(\S+)/gm)].map((m) => m[1]!);
  return [...inline, ...defined].filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

/** What is wrong with one link of `file`, or null. */
function brokenLink(file: string, target: string): string | null {
  const [path, anchor] = target.split('#', 2) as [string, string | undefined];
  const to = path === '' ? file : join(dirname(file), decodeURI(path));
  if (!existsSync(to)) return `${target}: no such file`;
  if (anchor && to.endsWith('.md') && !anchorsOf(to).has(anchor)) {
    return `${target}: ${relative(ROOT, to)} has no heading #${anchor}`;
  }
  return null;
}

const documents = markdownFiles();

describe('links between the documents', () => {
  it('finds the documents it checks', () => {
    const names = documents.map((f) => relative(ROOT, f));
    expect(names).toEqual(expect.arrayContaining(['README.md', 'ARCHITECTURE.md', 'docs/api.md']));
  });

  it('writes anchors as GitHub does', () => {
    expect(slug('Time zones and daylight saving (DST)')).toBe('time-zones-and-daylight-saving-dst');
    expect(slug('`H`: a minute of its own')).toBe('h-a-minute-of-its-own');
    expect(slug('PUT by name, ETag and If-Match')).toBe('put-by-name-etag-and-if-match');
  });

  it.each(documents.map((f) => [relative(ROOT, f), f]))(
    '%s: every relative link reaches a file, and a heading where it names one',
    (_name, file) => {
      const broken = relativeLinks(readFileSync(file, 'utf8'))
        .map((target) => brokenLink(file, target))
        .filter((problem) => problem !== null);
      expect(broken).toEqual([]);
    },
  );

  it('no document points at ../shared/, which a clone does not have', () => {
    const offenders = documents.filter((f) => readFileSync(f, 'utf8').includes('../shared/'));
    expect(offenders.map((f) => relative(ROOT, f))).toEqual([]);
  });
});
