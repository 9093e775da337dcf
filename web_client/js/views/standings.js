/** A tournament's standings as the server ranks them: Vegas dollars over the
ended rounds (each round's figure, a missed one counting -$52), cards on the
foundations, wins and their time. The client adds nothing up itself. */

import { h } from '../dom.js';
import { duration, money } from '../format.js';
import { createFold, foldSub } from './fold.js';
import { TEXT } from '../text.js';

const N = TEXT.standings;

function roundText(item) {
  if (!item.played) return `${money(item.vegas)}*`;
  return money(item.vegas) + (item.status === 'finished' ? ' ✓' : '');
}

function roundCell(item) {
  if (!item.played) return h('td', { class: 'missed extra', title: N.missed, text: roundText(item) });
  const won = item.status === 'finished';
  const title = won ? N.finishedIn(duration(item.finish_ms ?? 0)) : TEXT.leaderboard.status[item.status] ?? item.status;
  return h('td', { class: won ? 'won extra' : 'extra', title, text: roundText(item) });
}

/** The header cells: rank, player, total, a column per ended round, cards,
wins, time (all but the first three fold under the name on a phone). */
export function standingsHead(ended) {
  return ['#', N.player, N.total, ...ended.map((n) => N.round(n)), N.cards, N.wins, N.time]
    .map((text, i) => h('th', { scope: 'col', text, class: i > 2 ? 'extra' : '' }));
}

/** One line of the standings as a row; `me`: our player number or -1;
`rounds`: the line's rounds as objects (a big tournament's come as arrays,
tournamentField.roundsOf); `name`: the name cell's content when it is more than text. */
export function standingRow(line, { me = -1, rounds = line.rounds, name = null } = {}) {
  const named = line.player === me ? TEXT.common.you(line.nickname) : line.nickname;
  const text = line.withdrawn ? N.withdrawn(named) : named;
  const time = line.wins ? duration(line.time_ms) : '–';
  const sub = foldSub([...rounds.map((item, i) => `${N.round(i + 1)} ${roundText(item)}`),
    TEXT.bigStandings.cards(line.foundation), N.winsCount(line.wins), line.wins ? time : '']);
  return h('tr', {
    class: [line.player === me ? 'me' : '', line.withdrawn ? 'withdrawn' : ''].join(' ').trim(),
    dataset: { player: String(line.player) },
  },
  h('td', { class: 'rank', text: String(line.rank) }),
  name ? h('th', { scope: 'row', class: 'name', dataset: { sub } }, name(text))
    : h('th', { scope: 'row', class: 'name', text, dataset: { sub } }),
  h('td', { class: 'total', text: money(line.vegas) }),
  ...rounds.map(roundCell),
  h('td', { class: 'cards extra', text: String(line.foundation) }),
  h('td', { class: 'wins extra', text: String(line.wins) }),
  h('td', { class: 'time extra', text: time }));
}

/** A standings table in its box, folded on a phone (views/fold.js): `el`
(the toggle and the box) to put in the page, `fit()` after the rows change. */
export function foldedTable(table, label = N.fold) {
  const box = h('div', { class: 't-scroll' }, table);
  const fold = createFold(box, table, label);
  return { el: h('div', { class: 't-folded' }, fold.button, box), fit: fold.fit };
}

export function createStandings(host) {
  const head = h('tr');
  const body = h('tbody');
  const note = h('p', { class: 't-note' });
  const table = foldedTable(h('table', { class: 't-table', 'aria-labelledby': 't-standings-title' },
    h('thead', {}, head), body));
  const el = h('section', { class: 'panel t-standings', 'aria-labelledby': 't-standings-title' },
    h('h2', { id: 't-standings-title', text: N.title }), table.el, note);
  host.append(el);
  let drawn = '';

  /** t: the public tournament; me: our player number or -1. */
  function render(t, me) {
    const ended = t.rounds.filter((r) => r.status === 'ended').map((r) => r.n);
    const key = JSON.stringify([t.standings, ended, me]);
    if (key === drawn) return;
    drawn = key;
    head.replaceChildren(...standingsHead(ended));
    body.replaceChildren(...t.standings.map((line) => standingRow(line, { me })));
    table.fit();
    note.textContent = ended.length
      ? N.note
      : N.noneEnded;
  }

  return { el, render };
}
