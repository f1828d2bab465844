import { html, raw } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';

export type Markup = HtmlEscapedString | Promise<HtmlEscapedString>;

/** Where the dashboard lives; the board and the timers page hang below it. */
export interface DashboardPaths {
  board: string;
  timers: string;
}

const STYLE = raw(`
:root {
  --fg: #1f2328; --muted: #656d76; --line: #d8dee4; --bg: #ffffff; --soft: #f6f8fa;
  --accent: #0969da; --ok: #1a7f37; --warn: #bf8700; --bad: #cf222e; --info: #0969da; --odd: #8250df;
  font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; font-size: 14px; color: var(--fg);
}
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); }
a { color: var(--accent); text-decoration: none; }
a:hover { text-decoration: underline; }
header.top { display: flex; align-items: center; gap: 20px; padding: 10px 24px; background: #24292f; }
header.top .brand { color: #fff; font-weight: 700; font-size: 16px; letter-spacing: .3px; }
header.top nav a { color: #d0d7de; margin-right: 16px; }
header.top nav a.here { color: #fff; font-weight: 600; }
main { max-width: 1360px; margin: 0 auto; padding: 16px 24px 48px; }
h1 { font-size: 20px; margin: 8px 0 4px; }
h2 { font-size: 15px; margin: 24px 0 8px; }
.muted { color: var(--muted); }
.mono, code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12.5px; }
table { width: 100%; border-collapse: collapse; }
th, td { text-align: left; padding: 6px 8px; border-bottom: 1px solid var(--line); vertical-align: middle; }
th { font-size: 12px; font-weight: 600; color: var(--muted); background: var(--soft); white-space: nowrap; }
tbody tr:hover { background: #f3f6fa; }
tr.focus { background: #fff8c5 !important; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
.badge { display: inline-block; padding: 1px 8px; border-radius: 10px; font-size: 12px; font-weight: 600;
  border: 1px solid transparent; white-space: nowrap; }
.s-active, .s-succeeded { color: var(--ok); background: #dafbe1; border-color: #aceebb; }
.s-inactive, .s-pending { color: var(--muted); background: var(--soft); border-color: var(--line); }
.s-running { color: var(--info); background: #ddf4ff; border-color: #b6e3ff; }
.s-failed { color: var(--bad); background: #ffebe9; border-color: #ffcecb; }
.s-skipped { color: var(--warn); background: #fff8c5; border-color: #f5e0a0; }
.s-missed { color: var(--odd); background: #fbefff; border-color: #ecd8ff; }
form.inline { display: inline; margin: 0; }
button, .button { font: inherit; font-size: 13px; padding: 3px 12px; border-radius: 6px; cursor: pointer;
  border: 1px solid var(--line); background: var(--soft); color: var(--fg); }
button.danger { color: var(--bad); }
button.go { color: #fff; background: var(--ok); border-color: var(--ok); }
.filters { display: flex; flex-wrap: wrap; gap: 8px; align-items: center; margin: 12px 0; }
.filters input, .filters select { font: inherit; padding: 3px 6px; border: 1px solid var(--line); border-radius: 6px; }
.app-head { display: flex; align-items: baseline; gap: 10px; margin: 22px 0 6px; }
.app-head h2 { margin: 0; }
.next { font-size: 12px; line-height: 1.5; white-space: nowrap; }
.cols { display: grid; grid-template-columns: minmax(320px, 1fr) minmax(320px, 1fr); gap: 24px; }
dl.def { display: grid; grid-template-columns: max-content 1fr; gap: 4px 14px; margin: 0; }
dl.def dt { color: var(--muted); }
dl.def dd { margin: 0; word-break: break-all; }
.card { border: 1px solid var(--line); border-radius: 8px; padding: 12px 16px; }
.card h2 { margin-top: 0; }
.output { max-width: 360px; white-space: pre-wrap; word-break: break-all; max-height: 4.5em; overflow: hidden; }
svg.spark { display: block; }
svg.histogram text { font-size: 10px; fill: var(--muted); }
svg.histogram text.count { fill: var(--fg); }
svg.histogram .axis { stroke: var(--line); }
.stats span { margin-right: 14px; }
.pager { margin-top: 12px; }
.error { padding: 12px 16px; border: 1px solid #ffcecb; background: #ffebe9; border-radius: 8px; }
@media (max-width: 900px) { .cols { grid-template-columns: 1fr; } .hide-narrow { display: none; } }
`);

/** The page shell: top bar linking the timers page, the queues board and the API reference. */
export function layout(opts: {
  title: string;
  here: 'timers' | 'board';
  paths: DashboardPaths;
  body: Markup;
  script?: string;
}): Markup {
  const { paths } = opts;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${opts.title} · xtimer</title>
<style>${STYLE}</style>
</head>
<body>
<header class="top">
  <span class="brand">xtimer</span>
  <nav>
    <a href="${paths.timers}" class="${opts.here === 'timers' ? 'here' : ''}">Timers</a>
    <a href="${paths.board}" class="${opts.here === 'board' ? 'here' : ''}">Queues</a>
    <a href="/docs">API reference</a>
  </nav>
</header>
<main>
${opts.body}
</main>
${opts.script ? html`<script>${raw(opts.script)}</script>` : ''}
</body>
</html>`;
}

/** A status as a coloured badge (timer or run status). */
export function badge(status: string): Markup {
  return html`<span class="badge s-${status}">${status}</span>`;
}
