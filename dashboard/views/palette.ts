/**
 * The console's colours and type, light and dark: the pages' stylesheet and the queues
 * board (bull-board's theme) are both made from these, so the two look like one product.
 */
export const PALETTE = {
  light: {
    fg: '#1f2328',
    muted: '#656d76',
    line: '#d8dee4',
    bg: '#ffffff',
    soft: '#f6f8fa',
    accent: '#0969da',
    ok: '#1a7f37',
    warn: '#bf8700',
    bad: '#cf222e',
    odd: '#8250df',
    onColor: '#ffffff',
  },
  dark: {
    fg: '#e6edf3',
    muted: '#8d96a0',
    line: '#30363d',
    bg: '#0d1117',
    soft: '#161b22',
    accent: '#4493f8',
    ok: '#3fb950',
    warn: '#d29922',
    bad: '#f85149',
    odd: '#bc8cff',
    onColor: '#0d1117',
  },
} as const;

export type Colours = (typeof PALETTE)['light' | 'dark'];

export const FONT_SANS = 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
export const FONT_MONO = 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace';
