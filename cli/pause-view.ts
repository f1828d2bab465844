import type { components } from '../client/index.js';
import type { Colors } from './terminal.js';

type PauseState = components['schemas']['ServicePauseState'];
type Resumed = components['schemas']['ServiceResumed'];

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
