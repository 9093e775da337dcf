/** A tournament's rounds: each one's deal mode and status; once it has ended,
its code (revealed then), its results and each player's replay. A big
tournament's rounds carry counts, not results: how many could play and how
many did; a player's results and replays are on their standing line
(tstandings.js). */

import { h } from '../dom.js';
import { count, duration, modeText, money } from '../format.js';
import { statusText } from './leaderboard.js';
import { foldedTable } from './standings.js';
import { foldSub } from './fold.js';
import { say } from '../messages.js';
import { plural } from '../cards.js';

const STATUS = { pending: 'to come', starting: 'starting', running: 'being played', ended: 'over' };

export function modeOf(mode) {
  return modeText({ draw: Number(mode[1]), scoring: mode[2] });
}

async function copy(code) {
  try {
    await navigator.clipboard.writeText(code);
    say(`Copied ${code}`);
  } catch {
    say(`The deal: ${code}`);
  }
}

/** replay(round, player, nickname): open a player's replay of a round;
clock: the page's (clock.js). */
export function createRounds(host, { replay, clock }) {
  const list = h('ol', { class: 't-rounds', 'aria-label': 'Rounds' });
  const el = h('section', { class: 'panel t-rounds-panel', 'aria-labelledby': 't-rounds-title' },
    h('h2', { id: 't-rounds-title', text: 'Rounds' }), list);
  host.append(el);
  let drawn = '';
  let tid = '';
  const open = new Set(); // rounds whose results are unfolded (kept across redraws)

  function resultsTable(round) {
    const rows = (round.results || []).map((e) => h('tr', {},
      h('td', { text: String(e.rank) }),
      h('th', { scope: 'row', text: e.nickname, dataset: { sub: foldSub([`${e.foundation}/52 cards`, plural(e.moves, 'move')]) } }),
      h('td', { text: statusText(e) }),
      h('td', { class: 'extra', text: `${e.foundation}/52` }),
      h('td', { class: 'extra', text: String(e.moves) }),
      h('td', { text: money(e.vegas) }),
      h('td', { class: 't-replays' }, h('span', {},
        h('button', {
          class: 'btn small', type: 'button', text: 'Replay', 'aria-label': `Replay ${e.nickname}'s round ${round.n}`,
          onclick: () => replay(round.n, e.seat, e.nickname),
        }),
        h('a', {
          href: `/api/tournaments/${tid}/rounds/${round.n}/replay/${e.seat}`, text: 'JSON',
          'aria-label': `${e.nickname}'s moves in round ${round.n} (JSON)`,
        })))));
    const table = foldedTable(h('table', { class: 't-table', 'aria-label': `Results of round ${round.n}` },
      h('thead', {}, h('tr', {}, ...['#', 'Player', 'Result', 'Cards', 'Moves', 'Score', 'Replay']
        .map((text) => h('th', { scope: 'col', text, class: text === 'Cards' || text === 'Moves' ? 'extra' : '' })))),
      h('tbody', {}, ...rows)), 'Cards and moves');
    return table.el;
  }

  function dealLine(round) {
    return h('p', { class: 't-round-deal' }, h('span', { text: 'The deal: ' }),
        h('code', { class: 't-code', text: round.code }),
        h('button', { class: 'btn small', type: 'button', text: 'Copy', 'aria-label': `Copy the code of round ${round.n}`,
          onclick: () => copy(round.code) }));
  }

  function item(round, t) {
    const li = h('li', { class: `t-round ${round.status}`, dataset: { round: String(round.n), status: round.status } },
      h('div', { class: 't-round-head' },
        h('b', { text: `Round ${round.n}` }),
        h('span', { class: 't-mode', text: modeOf(t.settings.modes[round.n - 1]) }),
        h('span', { class: `badge t-status-${round.status}`, text: STATUS[round.status] })));
    if (round.status === 'starting' || round.status === 'running') {
      if (round.start_at) li.append(h('p', { class: 't-when', text: `Start: ${clock.timeOfDay(round.start_at)}`
        + (round.players != null && t.settings.big ? ` · ${count(round.players)} may play it` : '') }));
    }
    if (round.status === 'ended' && t.settings.big) {
      li.append(dealLine(round));
      li.append(h('p', { class: 't-when', text: `${count(round.played ?? 0)} of ${count(round.players ?? 0)} played it · `
        + 'find a player in the standings for their result and replay.' }));
    } else if (round.status === 'ended') {
      const results = round.results || [];
      const winner = results.find((e) => e.rank === 1 && e.status === 'finished');
      li.append(dealLine(round));
      li.append(h('p', { class: 't-when', text: winner ? `Won by ${winner.nickname} in ${duration(winner.finish_ms ?? 0)}`
        : results.length ? `Nobody finished the deal; best: ${results[0].nickname}` : 'Nobody played it.' }));
      const details = h('details', { class: 't-results', open: open.has(round.n) },
        h('summary', { text: 'Results and replays' }), resultsTable(round));
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
