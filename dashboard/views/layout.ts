import { html, raw } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';
import { formatInZone } from '../../src/domain/schedule/time-zone.js';
import type { ServicePauseState } from '../../src/services/apps/service-pause.js';
import type { Actor } from '../../src/services/timers/access.js';
import { CSRF_FIELD } from '../csrf-token.js';
import type { PageScript } from '../page-scripts.js';
import { type Colours, FONT_MONO, FONT_SANS, PALETTE } from './palette.js';

export type Markup = HtmlEscapedString | Promise<HtmlEscapedString>;

/** Where the dashboard lives: the timers pages, the failed runs, the audit log, the queues board, the pages' scripts. */
export interface DashboardPaths {
  timers: string;
  runs: string;
  audit: string;
  /** The header's pause and resume of everything (POST <service>/pause, <service>/resume). */
  service: string;
  /** bull-board over the queues. */
  queues: string;
  /** The pages' script files. */
  assets: string;
}

/** What every page's header shows of the emergency brake: the pause of everything, and where its forms come back to. */
export interface BrakeView {
  pause: ServicePauseState | null;
  /** This page's path and query. */
  back: string;
}

/** What the dashboard's handlers find on the context: who is acting, the browser's CSRF token, the brake. */
export type DashboardEnv = { Variables: { actor: Actor; csrf: string; brake: BrakeView } };

/** What every page needs: where things are, the browser's CSRF token for its forms, and the brake for its header. */
export interface PageContext {
  paths: DashboardPaths;
  csrf: string;
  brake: BrakeView;
}

/** What the shell needs: an error page may lack the token and the brake (a failure before they were read). */
export type ShellContext = Pick<PageContext, 'paths'> & Partial<Pick<PageContext, 'csrf' | 'brake'>>;

/** The palette's base colours as the stylesheet's custom properties (`--info` is the accent unless set after). */
function baseColours(c: Colours): string {
  return `--fg: ${c.fg}; --muted: ${c.muted}; --line: ${c.line}; --bg: ${c.bg}; --soft: ${c.soft};
  --accent: ${c.accent}; --ok: ${c.ok}; --warn: ${c.warn}; --bad: ${c.bad}; --info: ${c.accent}; --odd: ${c.odd};
  --on-color: ${c.onColor};`;
}

const STYLE = raw(`
:root {
  color-scheme: light dark;
  ${baseColours(PALETTE.light)}
  --ok-bg: #dafbe1; --ok-line: #aceebb; --warn-bg: #fff8c5; --warn-line: #f5e0a0;
  --bad-bg: #ffebe9; --bad-line: #ffcecb; --info-bg: #ddf4ff; --info-line: #b6e3ff;
  --odd-bg: #fbefff; --odd-line: #ecd8ff; --hover: #f3f6fa; --chip: #eef1f4;
  --bar: #24292f; --bar-fg: #d0d7de; --bar-line: #57606a;
  font-family: ${FONT_SANS}; font-size: 14px; color: var(--fg);
}
/* Dark mode follows the system: the same names, one dark palette. */
@media (prefers-color-scheme: dark) {
  :root {
    ${baseColours(PALETTE.dark)} --info: #58a6ff;
    --ok-bg: #12261e; --ok-line: #2a5a37; --warn-bg: #2b2111; --warn-line: #6b4f16;
    --bad-bg: #2d1417; --bad-line: #6e2a2e; --info-bg: #0f2339; --info-line: #1f4f80;
    --odd-bg: #251a3a; --odd-line: #4c3678; --hover: #161b22; --chip: #21262d;
    --bar: #010409; --bar-fg: #c9d1d9; --bar-line: #3d444d;
  }
}
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); }
a { color: var(--accent); text-decoration: none; }
a:hover { text-decoration: underline; }
header.top { display: flex; flex-wrap: wrap; align-items: center; gap: 6px 20px; padding: 10px 24px; background: var(--bar); }
header.top .brand { color: #fff; font-weight: 700; font-size: 16px; letter-spacing: .3px; }
header.top nav { display: flex; flex-wrap: wrap; gap: 4px 16px; }
header.top nav a { color: var(--bar-fg); }
header.top nav a.here { color: #fff; font-weight: 600; }
main { max-width: 1360px; margin: 0 auto; padding: 16px 24px 48px; }
h1 { font-size: 20px; margin: 8px 0 4px; display: flex; flex-wrap: wrap; align-items: center; gap: 8px; overflow-wrap: anywhere; }
h2 { font-size: 15px; margin: 24px 0 8px; }
.muted { color: var(--muted); }
.small { font-size: 12px; }
.mono, code { font-family: ${FONT_MONO}; font-size: 12.5px; }
.table-box { max-width: 100%; overflow-x: auto; }
table { width: 100%; border-collapse: collapse; }
th, td { text-align: left; padding: 6px 8px; border-bottom: 1px solid var(--line); vertical-align: middle; }
th { font-size: 12px; font-weight: 600; color: var(--muted); background: var(--soft); white-space: nowrap; }
tbody tr:hover { background: var(--hover); }
tr.focus { background: var(--warn-bg) !important; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
table.timers th, table.timers td { padding: 6px; }
td.nowrap { white-space: nowrap; }
.badge { display: inline-block; padding: 1px 8px; border-radius: 10px; font-size: 12px; font-weight: 600;
  border: 1px solid transparent; white-space: nowrap; }
.s-active, .s-succeeded { color: var(--ok); background: var(--ok-bg); border-color: var(--ok-line); }
.s-inactive, .s-pending, .s-completed { color: var(--muted); background: var(--soft); border-color: var(--line); }
.s-running { color: var(--info); background: var(--info-bg); border-color: var(--info-line); }
.s-failed { color: var(--bad); background: var(--bad-bg); border-color: var(--bad-line); }
.s-skipped { color: var(--warn); background: var(--warn-bg); border-color: var(--warn-line); }
.s-missed { color: var(--odd); background: var(--odd-bg); border-color: var(--odd-line); }
.label { display: inline-block; margin: 1px 4px 1px 0; padding: 0 6px; border-radius: 4px; font-size: 11.5px;
  background: var(--chip); color: var(--fg); white-space: nowrap; }
form.inline { display: inline; margin: 0; }
.actions { display: inline-flex; flex-wrap: wrap; gap: 6px; align-items: center; }
button, .button { font: inherit; font-size: 13px; padding: 3px 12px; border-radius: 6px; cursor: pointer;
  border: 1px solid var(--line); background: var(--soft); color: var(--fg); display: inline-block; }
.button:hover { text-decoration: none; }
button.danger { color: var(--bad); }
button.go, .button.go { color: var(--on-color); background: var(--ok); border-color: var(--ok); }
.filters { display: flex; flex-wrap: wrap; gap: 8px; align-items: center; margin: 12px 0; }
.filters input, .filters select { font: inherit; padding: 3px 6px; border: 1px solid var(--line); border-radius: 6px; max-width: 100%; }
.app-head { display: flex; flex-wrap: wrap; align-items: baseline; gap: 10px; margin: 22px 0 6px; }
.app-head h2 { margin: 0; }
.next { font-size: 12px; line-height: 1.5; white-space: nowrap; }
.when { display: inline-flex; flex-direction: column; line-height: 1.35; }
.when time { font-weight: 600; }
div.last { display: flex; flex-wrap: wrap; align-items: baseline; gap: 2px 8px; max-width: 230px; }
.when .abs { white-space: nowrap; font-size: 11.5px; color: var(--muted); font-family: ${FONT_MONO}; }
.cols { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(100%, 360px), 1fr)); gap: 24px; }
dl.def { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: 4px 14px; margin: 0; }
dl.def dt { color: var(--muted); }
dl.def dd { margin: 0; overflow-wrap: anywhere; }
.card { border: 1px solid var(--line); border-radius: 8px; padding: 12px 16px; min-width: 0; }
.card h2 { margin-top: 0; }
.attempt + .attempt { border-top: 1px solid var(--line); margin-top: 14px; }
.output { max-width: 360px; white-space: pre-wrap; word-break: break-all; max-height: 4.5em; overflow: hidden; }
svg.spark { display: block; }
svg.timeline { display: block; max-width: 100%; height: auto; }
svg.timeline .axis { stroke: var(--line); }
.t-succeeded { fill: var(--ok); background: var(--ok); }
.t-failed { fill: var(--bad); background: var(--bad); }
.t-missed { fill: var(--odd); background: var(--odd); }
.t-skipped { fill: var(--warn); background: var(--warn); }
.t-running { fill: var(--info); background: var(--info); }
.t-pending { fill: var(--muted); background: var(--muted); }
.timeline-legend { display: flex; flex-wrap: wrap; gap: 4px 14px; margin-top: 4px; max-width: 640px; }
.timeline-legend > :last-child { margin-left: auto; }
.swatch { display: inline-block; width: 9px; height: 9px; border-radius: 50%; margin-right: 4px; }
.soon { display: flex; flex-wrap: wrap; gap: 8px 28px; margin: 0 0 10px; }
.soon > div { display: flex; gap: 8px; align-items: flex-start; }
svg.histogram { max-width: 100%; height: auto; }
svg.histogram text { font-size: 10px; fill: var(--muted); }
svg.histogram text.count { fill: var(--fg); }
svg.histogram .axis { stroke: var(--line); }
.stats span { margin-right: 14px; }
input.pick { margin: 0 2px 0 0; vertical-align: -2px; }
form.bulk { border: 1px solid var(--line); border-radius: 8px; padding: 8px 12px; }
dl.counts { display: flex; flex-wrap: wrap; gap: 8px 28px; margin: 8px 0; }
dl.counts dt { color: var(--muted); font-size: 12.5px; }
dl.counts dd { margin: 0; font-size: 22px; }
.pager { margin-top: 12px; }
.error { padding: 12px 16px; border: 1px solid var(--bad-line); background: var(--bad-bg); border-radius: 8px; overflow-wrap: anywhere; }
.notice { padding: 10px 16px; border: 1px solid var(--ok-line); background: var(--ok-bg); border-radius: 8px; margin: 12px 0; overflow-wrap: anywhere; }
form.edit { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: 10px 16px; align-items: start; max-width: 900px; }
form.edit > label { padding-top: 5px; color: var(--muted); }
form.edit input[type=text], form.edit input[type=url], form.edit input[type=number], form.edit select, form.edit textarea {
  font: inherit; padding: 4px 6px; border: 1px solid var(--line); border-radius: 6px; width: 100%; max-width: 640px; }
form.edit textarea { min-height: 4.5em; font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12.5px; }
form.edit .hint { display: block; color: var(--muted); font-size: 12px; margin-top: 2px; }
form.edit .field-error, .field-error { display: block; color: var(--bad); font-size: 12.5px; margin-top: 2px; }
form.edit .wide { grid-column: 1 / -1; }
form.edit > h2.wide { margin: 14px 0 0; padding-bottom: 4px; border-bottom: 1px solid var(--line); }
form.edit label.choice { display: inline-block; margin: 3px 14px 3px 0; color: var(--fg); white-space: nowrap; }
form.edit:has(#f-kind option[value="cron"]:checked) :is(.k-every, .k-at),
form.edit:has(#f-kind option[value="every"]:checked) :is(.k-cron, .k-at),
form.edit:has(#f-kind option[value="at"]:checked) :is(.k-cron, .k-every, .k-repeat) { display: none; }
ul.preview { margin: 4px 0 0; padding-left: 18px; font-size: 12.5px; }
.change { font-size: 12.5px; }
.change .field { color: var(--muted); }
.change del { color: var(--bad); text-decoration: none; }
.change ins { color: var(--ok); text-decoration: none; }
.brake-off { margin-left: auto; color: var(--bar-fg); }
.brake-off summary { cursor: pointer; font-size: 13px; padding: 2px 10px; border: 1px solid var(--bar-line); border-radius: 6px; list-style: none; }
.brake-off summary::-webkit-details-marker { display: none; }
.brake-off form { display: flex; flex-wrap: wrap; gap: 6px; align-items: center; margin-top: 8px; }
.brake-off label { color: #fff; font-size: 12.5px; }
.brake-off input { font: inherit; padding: 3px 6px; border: 1px solid var(--line); border-radius: 6px; width: min(360px, 100%); }
.brake-on { display: flex; flex-wrap: wrap; align-items: center; justify-content: space-between; gap: 8px 16px;
  padding: 10px 24px; background: var(--bad-bg); border-bottom: 2px solid var(--bad); overflow-wrap: anywhere; }
.brake-on .brake-title { color: var(--bad); }
@media (max-width: 900px) { .hide-narrow { display: none; } }
/* A phone: each timer a card of label and value lines, its buttons in reach, nothing sideways. */
@media (max-width: 640px) {
  table.timers thead { display: none; }
  table.timers, table.timers tbody, table.timers tr { display: block; }
  table.timers tr { border: 1px solid var(--line); border-radius: 8px; padding: 6px 12px; margin-bottom: 10px; }
  table.timers td { display: flex; gap: 12px; align-items: baseline; border: 0; padding: 3px 0; text-align: left; overflow-wrap: anywhere; }
  table.timers td[data-label]::before { content: attr(data-label); flex: none; width: 92px; color: var(--muted); font-size: 12px; }
  table.timers td > div { min-width: 0; }
  table.timers td.row-actions { padding-top: 8px; }
  table.timers .label { white-space: normal; }
}
@media (max-width: 600px) {
  main { padding: 12px 12px 40px; }
  header.top, .brake-on { padding: 10px 12px; }
  form.edit { grid-template-columns: minmax(0, 1fr); }
  form.edit > label { padding-top: 0; }
}
`);

/**
 * The emergency brake in every page's header (the dashboard's users are the admin):
 * while everything is paused, a banner with the note, since when and by whom, and a
 * Resume button; otherwise a folded "Pause everything" form that asks for the note.
 * Plain forms with the CSRF token, like every action.
 */
function brakeControls(ctx: ShellContext): { inHeader: Markup; banner: Markup } {
  const { brake, csrf } = ctx;
  if (brake === undefined || csrf === undefined) return { inHeader: html``, banner: html`` };
  const hidden = html`<input type="hidden" name="${CSRF_FIELD}" value="${csrf}"><input type="hidden" name="back" value="${brake.back}">`;
  const { pause } = brake;
  if (pause === null) {
    return {
      inHeader: html`<details class="brake-off" id="service-pause" data-paused="false">
  <summary>Pause everything</summary>
  <form method="post" action="${ctx.paths.service}/pause">${hidden}
    <label for="brake-note">Why (every run skipped meanwhile records it)</label>
    <input id="brake-note" name="note" required maxlength="1024" placeholder="INC-1234: receivers down" autocomplete="off">
    <button type="submit" class="danger" data-action="pause-all">Pause everything</button>
  </form>
</details>`,
      banner: html``,
    };
  }
  return {
    inHeader: html``,
    banner: html`<section class="brake-on" id="service-pause" data-paused="true" aria-label="Everything is paused">
  <div><strong class="brake-title">Everything is paused</strong> since ${when(pause.pausedAt, 'UTC')} by <span class="mono" data-field="paused-by">${pause.pausedBy}</span>: <span data-field="note">${pause.note}</span><br>
  <span class="small muted">Scheduled runs and backfills are recorded skipped, not called; run now and retry still go.</span></div>
  <form class="inline" method="post" action="${ctx.paths.service}/resume">${hidden}<button type="submit" class="go" data-action="resume-all">Resume</button></form>
</section>`,
  };
}

/** The page shell: top bar linking the timers, the failed runs, the changes, the queues board and the API reference, and the brake. */
export function layout(opts: {
  title: string;
  here: 'timers' | 'runs' | 'audit';
  ctx: ShellContext;
  body: Markup;
  /** The page's script besides the live refresh (which runs wherever a `#live` box is). */
  script?: PageScript;
}): Markup {
  const { paths } = opts.ctx;
  const brake = brakeControls(opts.ctx);
  const nav = (href: string, here: boolean, text: string) =>
    html`<a href="${href}" class="${here ? 'here' : ''}">${text}</a>`;
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
    ${nav(paths.timers, opts.here === 'timers', 'Timers')}
    ${nav(`${paths.runs}?status=failed`, opts.here === 'runs', 'Failed runs')}
    ${nav(paths.audit, opts.here === 'audit', 'Changes')}
    ${nav(paths.queues, false, 'Queues')}
    <a href="/docs">API reference</a>
  </nav>
  ${brake.inHeader}
</header>
${brake.banner}
<main>
${opts.body}
</main>
<script src="${paths.assets}/live.js"></script>
<script src="${paths.assets}/times.js"></script>
${opts.script ? html`<script src="${paths.assets}/${opts.script}"></script>` : ''}
</body>
</html>`;
}

/** The "live" box: while ticked, the page's `[data-live]` regions refresh every `everyMs`. */
export function liveBox(everyMs: number): Markup {
  return html`<label class="muted"><input type="checkbox" id="live" data-every="${everyMs}" checked> live (every ${everyMs / 1000} s)</label>`;
}

/** A status as a coloured badge (timer or run status). */
export function badge(status: string): Markup {
  return html`<span class="badge s-${status}">${status}</span>`;
}

/** `2026-11-22 10:05:03 +08:00` (milliseconds only when there are some). */
export function zoned(ms: number, timeZone: string): string {
  const iso = formatInZone(ms, timeZone);
  const [date, rest] = iso.split('T') as [string, string];
  const time = rest.slice(0, 12).replace(/\.000$/, '');
  return `${date} ${time} ${rest.slice(12)}`;
}

/** An instant in a zone, with the zone's offset; the UTC time and the zone's name on hover. */
export function when(ms: number, timeZone: string): Markup {
  const iso = new Date(ms).toISOString();
  return html`<time datetime="${iso}" title="${iso} · ${timeZone}">${zoned(ms, timeZone)}</time>`;
}

/**
 * How far `ms` is from `now` as people say it: `in 5 s`, `3 min ago`, `in 2 h`, `4 d ago`
 * (whole units, rounded down). times.js says the same in the browser as the clock moves.
 */
export function relativeTime(ms: number, now: number): string {
  const s = Math.floor(Math.abs(ms - now) / 1000);
  if (s < 1) return 'now';
  const span =
    s < 60
      ? `${s} s`
      : s < 3600
        ? `${Math.floor(s / 60)} min`
        : s < 172_800
          ? `${Math.floor(s / 3600)} h`
          : `${Math.floor(s / 86_400)} d`;
  return ms > now ? `in ${span}` : `${span} ago`;
}

/**
 * An instant as people read it: how far from now (kept current by times.js), and below it
 * the time in the timer's zone with its offset, which the hover also shows with the zone.
 */
export function whenRelative(ms: number, timeZone: string, now: number): Markup {
  const shown = zoned(ms, timeZone);
  return html`<span class="when"><time datetime="${new Date(ms).toISOString()}" data-rel="${ms}" title="${shown} · ${timeZone}">${relativeTime(ms, now)}</time><span class="abs">${shown}</span></span>`;
}

/** `?a=1&label=x:y&label=…`: absent and empty values left out, arrays repeated. */
export function query(params: Record<string, string | number | readonly string[] | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    for (const one of Array.isArray(v) ? v : [v]) {
      if (one !== undefined && one !== '') q.append(k, String(one));
    }
  }
  const s = q.toString();
  return s ? `?${s}` : '';
}

/** The CSRF token every form posts. */
export function csrfField(ctx: PageContext): Markup {
  return html`<input type="hidden" name="${CSRF_FIELD}" value="${ctx.csrf}">`;
}

/** A one-button form posting to `action` (enable, run now, retry…), coming back to `back`. */
export function postButton(
  ctx: PageContext,
  action: string,
  text: string,
  opts: { back?: string; kind?: 'go' | 'danger'; name: string; title?: string },
): Markup {
  return html`<form class="inline" method="post" action="${action}">${csrfField(ctx)}${
    opts.back === undefined ? '' : html`<input type="hidden" name="back" value="${opts.back}">`
  }<button type="submit" class="${opts.kind ?? ''}" data-action="${opts.name}" title="${opts.title ?? ''}">${text}</button></form>`;
}

/** What an action did, shown on the page it comes back to (`?done=`): a fixed text per action, never text from the URL. */
const DONE: Record<string, (task: string | undefined) => string> = {
  created: () => 'Timer created.',
  updated: () => 'Timer saved.',
  enabled: () => 'Timer enabled: its runs are planned.',
  disabled: () => 'Timer disabled: nothing due from now on fires.',
  deleted: () => 'Timer deleted, its pending runs cancelled.',
  triggered: (task) => `Run now: run ${task ?? ''} is queued and shows in the runs below.`,
  retried: (task) => `Retry: run ${task ?? ''} is queued again as its next attempt.`,
  paused: () => 'Everything is paused: scheduled runs are recorded skipped until you resume.',
  resumed: () => 'Resumed: runs due from now on are called.',
  'backfill-started': () => 'Backfill started: its runs are sent at BACKFILL_RATE.',
  'backfill-cancelled': () => 'Backfill cancelled: its runs not yet sent are removed.',
};

export function notice(done: string | undefined, task: string | undefined): Markup {
  const say = done === undefined ? undefined : DONE[done];
  if (!say) return html``;
  const key = task !== undefined && /^\d{1,15}_\d{1,15}$/.test(task) ? task : undefined;
  return html`<p class="notice" role="status" data-done="${done}">${say(key)}</p>`;
}
