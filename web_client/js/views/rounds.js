/** A tournament's rounds: each one's deal mode and status; once it has ended,
its code (revealed then), its results and each player's replay. A big
tournament's rounds carry counts, not results: how many could play and how
many did; a player's results and replays are on their standing line
(bigstandings.js). */

import { h } from '../dom.js';
import { count, duration, modeText, money } from '../format.js';
import { statusText } from './leaderboard.js';
import { foldedTable } from './standings.js';
import { foldSub } from './fold.js';
import { say } from '../messages.js';
import { TEXT } from '../text.js';

const O = TEXT.rounds;

export function modeOf(mode) {
  return modeText({ draw: Number(mode[1]), scoring: mode[2] });
}

async function copy(code) {
  try {
    await navigator.clipboard.writeText(code);
    say(O.copied(code));
  } catch {
    say(O.deal(code));
  }
}

/** replay(round, player, nickname): open a player's replay of a round;
clock: the page's (clock.js). */
export function createRounds(host, { replay, clock }) {
  const list = h('ol', { class: 't-rounds', 'aria-label': O.rounds });
  const el = h('section', { class: 'panel t-rounds-panel', 'aria-labelledby': 't-rounds-title' },
    h('h2', { id: 't-rounds-title', text: O.rounds }), list);
  host.append(el);
  let drawn = '';
  let tid = '';
  const open = new Set(); // rounds whose results are unfolded (kept across redraws)

  function resultsTable(round) {
    const rows = (round.results || []).map((e) => h('tr', {},
      h('td', { text: String(e.rank) }),
      h('th', { scope: 'row', text: e.nickname, dataset: { sub: foldSub([TEXT.results.subCards(e.foundation), TEXT.boards.moves(e.moves)]) } }),
      h('td', { text: statusText(e) }),
      h('td', { class: 'extra', text: `${e.foundation}/52` }),
      h('td', { class: 'extra', text: String(e.moves) }),
      h('td', { text: money(e.vegas) }),
      h('td', { class: 't-replays' }, h('span', {},
        h('button', {
          class: 'btn small', type: 'button', text: O.replay, 'aria-label': O.replayLabel(e.nickname, round.n),
          onclick: () => replay(round.n, e.seat, e.nickname),
        }),
        h('a', {
          href: `/api/tournaments/${tid}/rounds/${round.n}/replay/${e.seat}`, text: 'JSON',
          'aria-label': O.json(e.nickname, round.n),
        })))));
    const table = foldedTable(h('table', { class: 't-table', 'aria-label': O.table(round.n) },
      h('thead', {}, h('tr', {}, ...[{ text: '#' }, { text: O.player }, { text: O.result }, { text: O.cards, class: 'extra' },
        { text: O.moves, class: 'extra' }, { text: O.score }, { text: O.replay }]
        .map((col) => h('th', { scope: 'col', ...col })))),
      h('tbody', {}, ...rows)), O.fold);
    return table.el;
  }

  function dealLine(round) {
    return h('p', { class: 't-round-deal' }, h('span', { text: O.theDeal }),
        h('code', { class: 't-code', text: round.code }),
        h('button', { class: 'btn small', type: 'button', text: O.copy, 'aria-label': O.copyLabel(round.n),
          onclick: () => copy(round.code) }));
  }

  function item(round, t) {
    const li = h('li', { class: `t-round ${round.status}`, dataset: { round: String(round.n), status: round.status } },
      h('div', { class: 't-round-head' },
        h('b', { text: O.round(round.n) }),
        h('span', { class: 't-mode', text: modeOf(t.settings.modes[round.n - 1]) }),
        h('span', { class: `badge t-status-${round.status}`, text: O.status[round.status] })));
    if (round.status === 'starting' || round.status === 'running') {
      if (round.start_at) li.append(h('p', { class: 't-when', text: O.start(clock.timeOfDay(round.start_at))
        + (round.players != null && t.settings.big ? O.mayPlay(count(round.players)) : '') }));
    }
    if (round.status === 'ended' && t.settings.big) {
      li.append(dealLine(round));
      li.append(h('p', { class: 't-when', text: O.played(count(round.played ?? 0), count(round.players ?? 0)) }));
    } else if (round.status === 'ended') {
      const results = round.results || [];
      const winner = results.find((e) => e.rank === 1 && e.status === 'finished');
      li.append(dealLine(round));
      li.append(h('p', { class: 't-when', text: winner ? O.wonBy(winner.nickname, duration(winner.finish_ms ?? 0))
        : results.length ? O.best(results[0].nickname) : O.nobody }));
      const details = h('details', { class: 't-results', open: open.has(round.n) },
        h('summary', { text: O.details }), resultsTable(round));
      details.addEventListener('toggle', () => {
        if (details.open) open.add(round.n);
        else open.delete(round.n);
      });
      li.append(details);
    }
    return li;
  }

  function render(t) {
    tid = t.id;
    const key = JSON.stringify([t.id, t.rounds]);
    if (key === drawn) return;
    drawn = key;
    list.replaceChildren(...t.rounds.map((r) => item(r, t)));
  }

  return { el, render };
}
