import { Hono } from 'hono';

/**
 * The dashboard's scripts, served as files under /dashboard/assets/: the pages carry no
 * inline script, so the Content-Security-Policy's `script-src 'self'` runs these and
 * nothing a page could be made to hold.
 */

/** Refreshes the page's `[data-live]` regions in place while the "live" box is ticked: the filters and forms outside them keep what was typed, ticked boxes stay ticked. */
const LIVE = `(function () {
  var key = 'xtimer.live', box = document.getElementById('live');
  if (!box) return;
  var every = Number(box.dataset.every) || 5000, stored = localStorage.getItem(key);
  box.checked = stored === null || stored === '1';
  box.addEventListener('change', function () { localStorage.setItem(key, box.checked ? '1' : '0'); });
  function tick() {
    var a = document.activeElement;
    var busy = a && a.closest && a.closest('[data-live]') && a.matches('input, select, textarea');
    if (!box.checked || document.hidden || busy) return setTimeout(tick, every);
    fetch(location.href, { credentials: 'same-origin' }).then(function (res) {
      return res.ok ? res.text() : null;
    }).then(function (text) {
      if (text === null) return;
      var doc = new DOMParser().parseFromString(text, 'text/html');
      document.querySelectorAll('[data-live]').forEach(function (el) {
        var fresh = doc.getElementById(el.id);
        if (!fresh) return;
        // Ticked rows stay ticked across a refresh: a selection is being made.
        var ticked = {};
        el.querySelectorAll('input[type=checkbox]:checked').forEach(function (box) { ticked[box.name + '=' + box.value] = true; });
        el.innerHTML = fresh.innerHTML;
        el.querySelectorAll('input[type=checkbox]').forEach(function (box) { if (ticked[box.name + '=' + box.value]) box.checked = true; });
      });
    }).catch(function () {}).then(function () { setTimeout(tick, every); });
  }
  setTimeout(tick, every);
})();`;

/**
 * The form's live preview follows the chosen kind of schedule (cron, every and offset, or
 * at) with the zone and window, each fire time shown as the pages show times:
 * `2026-11-23 02:30:00 +08:00`. The Calendars boxes follow the app as it is typed.
 */
const PREVIEW = `(function () {
  var form = document.getElementById('timer-form'), out = document.getElementById('preview');
  if (!form || !out) return;
  function field(name) { return form.elements.namedItem(name); }
  function value(name) { var f = field(name); return f ? f.value.trim() : ''; }
  var KIND = { cron: ['cron'], every: ['every', 'offset'], at: ['at'] }, wait, seq = 0;
  function shown(iso) { return iso.replace('T', ' ').replace(/\\.000(?=[-+Z])/, '').replace(/([+-]\\d\\d:\\d\\d|Z)$/, ' $1'); }
  function line(text, cls) { var li = document.createElement('li'); li.textContent = text; if (cls) li.className = cls; return li; }
  function show() {
    var kind = value('kind') || 'cron', n = ++seq, q = new URLSearchParams({ count: '5' });
    if (!value(kind)) return;
    var names = KIND[kind].concat(kind === 'at' ? [] : ['startAt', 'endAt'], ['timezone']), sent = {};
    names.forEach(function (name) { sent[name] = value(name); if (sent[name]) q.set(name, sent[name]); });
    fetch(out.dataset.src + '?' + q, { credentials: 'same-origin' })
      .then(function (r) { return r.json(); })
      .then(function (body) {
        if (n !== seq) return;
        out.replaceChildren();
        // Each field the shown times were asked with, so a reader (or a test) can tell them from a stale answer.
        out.dataset.kind = kind;
        names.forEach(function (name) { out.dataset[name] = sent[name]; });
        if (body.error) return out.append(line(body.error.message, 'field-error'));
        if (body.items.length === 0) return out.append(line('no fire time left', 'muted'));
        body.items.forEach(function (iso) { out.append(line(shown(iso))); });
      })
      .catch(function () {});
  }
  function soon() { clearTimeout(wait); wait = setTimeout(show, 250); }
  ['kind', 'cron', 'every', 'offset', 'at', 'timezone', 'startAt', 'endAt'].forEach(function (name) {
    var f = field(name);
    if (f) { f.addEventListener('input', soon); f.addEventListener('change', soon); }
  });
  if (!out.children.length) show();

  var cals = document.getElementById('f-skipCalendars'), app = field('app');
  if (!cals || !app || app.type === 'hidden') return;
  app.addEventListener('change', function () {
    var ticked = Array.from(cals.querySelectorAll('input:checked')).map(function (b) { return b.value; });
    fetch(cals.dataset.src + '?' + new URLSearchParams({ app: app.value.trim() }), { credentials: 'same-origin' })
      .then(function (r) { return r.json(); })
      .then(function (body) {
        cals.replaceChildren();
        if (!body.items || body.items.length === 0) {
          var none = document.createElement('span');
          none.className = 'muted small';
          none.textContent = 'the app has no calendars';
          return cals.append(none);
        }
        body.items.forEach(function (name) {
          var label = document.createElement('label'), box = document.createElement('input');
          label.className = 'choice';
          box.type = 'checkbox'; box.name = 'skipCalendars'; box.value = name; box.checked = ticked.indexOf(name) >= 0;
          label.append(box, ' ' + name);
          cals.append(label);
        });
      })
      .catch(function () {});
  });
})();`;

/** Keeps every `time[data-rel]` saying how far it is from now, as relativeTime (views/layout.ts) words it. */
const TIMES = `(function () {
  function span(s) {
    if (s < 60) return s + ' s';
    if (s < 3600) return Math.floor(s / 60) + ' min';
    if (s < 172800) return Math.floor(s / 3600) + ' h';
    return Math.floor(s / 86400) + ' d';
  }
  function relative(ms, now) {
    var s = Math.floor(Math.abs(ms - now) / 1000);
    if (s < 1) return 'now';
    return ms > now ? 'in ' + span(s) : span(s) + ' ago';
  }
  function tick() {
    var now = Date.now();
    document.querySelectorAll('time[data-rel]').forEach(function (el) {
      var text = relative(Number(el.dataset.rel), now);
      if (el.textContent !== text) el.textContent = text;
    });
  }
  tick();
  setInterval(tick, 1000);
})();`;

const SCRIPTS = { 'live.js': LIVE, 'times.js': TIMES, 'timer-form.js': PREVIEW } as const;

/** A page script by its file name. */
export type PageScript = keyof typeof SCRIPTS;

/** Where the scripts are served, below the dashboard's path. */
export const ASSETS_PATH = '/assets';

/** Serves the page scripts at `<dashboard>/assets/<name>`. */
export function pageScriptRoutes(): Hono {
  return new Hono().get('/:file', (c) => {
    const file = c.req.param('file');
    if (!Object.hasOwn(SCRIPTS, file)) return c.notFound();
    return c.body(SCRIPTS[file as PageScript], 200, {
      'content-type': 'text/javascript; charset=utf-8',
      'cache-control': 'no-cache',
    });
  });
}
