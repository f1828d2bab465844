/**
 * Code samples read out of the Markdown that shows them, so a test can run what a reader
 * copies rather than a copy of it.
 */

/** The ```ts blocks of `markdown` that import `verifyCallback` from xtimer/client: sample receivers. */
export function receiverSamples(markdown: string): string[] {
  return [...markdown.matchAll(/```ts\n([\s\S]*?)```/g)]
    .map((m) => m[1]!)
    .filter((code) => /import \{[^}]*\bverifyCallback\b[^}]*\} from 'xtimer\/client'/.test(code));
}

/** The code of each ```<lang> block of `markdown`, in order. */
export function codeBlocks(markdown: string, lang: string): string[] {
  return [...markdown.matchAll(/```([a-z]*)\n([\s\S]*?)```/g)].filter((m) => m[1] === lang).map((m) => m[2]!);
}
