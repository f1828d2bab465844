import type { components } from '../client/index.js';
import type { Colors } from './terminal.js';

type PauseState = components['schemas']['ServicePauseState'];
type Resumed = components['schemas']['ServiceResumed'];
type Timer = components['schemas']['Timer'];
type Pause = components['schemas']['Pause'];
type AppTimersChanged = components['schemas']['AppTimersChanged'];

/** Whether everything is paused, and if so since when, by whom and why, with what it means and how to end it. */
export function renderPauseState(state: PauseState, c: Colors): string {
  if (!state.paused) return `${c.green('Not paused:')} runs are called as scheduled.\n`;
  return (
    `${c.red(c.bold('PAUSED'))} since ${state.pausedAt} by ${state.pausedBy}: ${state.note}\n` +
    `Scheduled runs and backfills are recorded skipped ("paused: <note>"); run now and retry still go.\n` +
    `End it with: xtimer resume-all\n`
  );
}

/** What a resume did: which pause it ended, if any. */
export function renderResumed(resumed: Resumed, c: Colors): string {
  const ended = resumed.ended;
  if (ended === null) return 'Nothing was paused.\n';
  return (
    `${c.green('Resumed:')} the pause since ${ended.pausedAt} by ${ended.pausedBy} (${ended.note}) has ended; ` +
    'runs due from now on are called.\n'
  );
}

const timerOf = (t: Timer): string => `timer ${t.id} (${t.app}/${t.name})`;
const timers = (n: number): string => `${n} timer${n === 1 ? '' : 's'}`;
const untilOf = (until: string | null | undefined): string => (until ? `until ${until}` : 'until resumed');

/** What `pause <timer>` did: paused until when and why, and how to end it. */
export function renderTimerPaused(t: Timer, c: Colors): string {
  if (t.status !== 'inactive') return `Timer ${t.id} (${t.app}/${t.name}) is ${t.status}: not paused.\n`;
  return (
    `${c.yellow('Paused')} ${timerOf(t)} ${untilOf(t.pausedUntil)}${t.pausedNote ? `: ${t.pausedNote}` : ''}\n` +
    `Resume it with: xtimer resume ${t.id}\n`
  );
}

/** What `resume <timer>` did. */
export function renderTimerResumed(t: Timer, c: Colors): string {
  if (t.status !== 'active') return `Timer ${t.id} (${t.app}/${t.name}) is ${t.status}.\n`;
  return `${c.green('Resumed')} ${timerOf(t)}: its runs are planned again.\n`;
}

/** What `pause --app` did: how many of the app's active timers it paused, until when and why. */
export function renderAppPaused(changed: AppTimersChanged, pause: Pause, c: Colors): string {
  return (
    `${c.yellow('Paused')} ${timers(changed.changed)} of app ${changed.app} ${untilOf(pause.until)}` +
    `${pause.note ? `: ${pause.note}` : ''}\nResume them with: xtimer resume --app ${changed.app}\n`
  );
}

/** What `resume --app` did: how many of the app's disabled timers are active again. */
export function renderAppResumed(changed: AppTimersChanged, c: Colors): string {
  return `${c.green('Resumed')} ${timers(changed.changed)} of app ${changed.app}.\n`;
}
