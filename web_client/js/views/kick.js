/** The organizer's buttons that take a player out of a tournament
(`t_kick`): "Remove from the tournament" and "Remove and ban the nickname",
each asked twice (the second press within four seconds acts). One removal
awaits its second press at a time, on the whole page: the tournament's page
makes one `createKick` and hands it to the parts that list players. */

import { h, toggle } from '../dom.js';
import * as tournament from '../tournament.js';

const AGAIN_WITHIN = 4000; // ms for the second press

export function createKick(app) {
  let asked = null; // {player, ban}: the removal awaiting its second press
  let timer = 0;

  function press(player, ban) {
    if (!asked || asked.player !== player || asked.ban !== ban) {
      asked = { player, ban };
      clearTimeout(timer);
      timer = setTimeout(() => { asked = null; app.changed(); }, AGAIN_WITHIN);
    } else {
      asked = null;
      tournament.kick(app, player, ban);
    }
    app.changed();
  }

  /** The two buttons for `line` ({player, nickname}); `short`: one-word
  labels, for a line of a list (their names say the rest). */
  function buttons(line, { short = false } = {}) {
    const is = (ban) => Boolean(asked && asked.player === line.player && asked.ban === ban);
    const kick = h('button', { class: 'btn small', type: 'button', onclick: () => press(line.player, false),
      text: is(false) ? `Really remove ${line.nickname}?` : short ? 'Remove' : 'Remove from the tournament',
      'aria-label': is(false) ? null : `Remove ${line.nickname} from the tournament` });
    const ban = h('button', { class: 'btn small', type: 'button', onclick: () => press(line.player, true),
      text: is(true) ? `Really ban ${line.nickname}?` : short ? 'Ban' : 'Remove and ban the nickname',
      'aria-label': is(true) ? null : `Remove ${line.nickname} and ban the nickname` });
    toggle(kick, 'danger', is(false));
    toggle(ban, 'danger', is(true));
    return h('div', { class: 'buttons t-kick' }, kick, ban);
  }

  /** What awaits a second press (for a view's redraw key). */
  function pending() {
    return asked;
  }

  return { buttons, pending };
}
