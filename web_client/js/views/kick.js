/** The organizer's buttons that take a player out of a tournament
(`t_kick`): "Remove from the tournament" and "Remove and ban the nickname",
each asked twice (the second press within four seconds acts). One removal
awaits its second press at a time, on the whole page. */

import { h, toggle } from '../dom.js';
import { changed } from '../state.js';
import * as tournament from '../tournament.js';

let asked = null; // {player, ban}: the removal awaiting its second press
let timer = 0;

/** What awaits a second press (for a view's redraw key). */
export function pending() {
  return asked;
}

function press(player, ban) {
  if (!asked || asked.player !== player || asked.ban !== ban) {
    asked = { player, ban };
    clearTimeout(timer);
    timer = setTimeout(() => { asked = null; changed(); }, 4000);
  } else {
    asked = null;
    tournament.kick(player, ban);
  }
  changed();
}

/** The two buttons for `line` ({player, nickname}); `short`: one-word
labels, for a line of a list (their names say the rest). */
export function kickButtons(line, { short = false } = {}) {
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
