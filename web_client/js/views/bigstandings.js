/** A big tournament's standings: the top lines the tournament carries
(`top`), the viewer's own line pinned under them with the lines just above
and below and the rank ("41st of 4 212", from `t_me`), and a browser of the
whole field: a search by nickname (`t_find`) and pages (`t_page`). A line
found or picked from a page shows with each of its rounds, a replay of each
round played, and for the organizer the ways to remove the player (kick.js).
Everything is drawn from `state.tour.field` (tournamentfield.js); the server keeps
the rest of the standings. */

import { h, setText, toggle } from '../dom.js';
import * as tournamentField from '../tournamentfield.js';
import { count, duration, money, ordinal, placeOf } from '../format.js';
import { statusText } from './leaderboard.js';
import { foldedTable, standingRow, standingsHead } from './standings.js';
import { createFindForm, createPager } from './pager.js';
import { TEXT } from '../text.js';
import * as paging from '../paging.js';

const Z = TEXT.bigStandings;
const N = TEXT.standings;

/** actions.replay(round, player, nickname): open a player's replay of a round;
kick: the page's removal buttons (kick.js). */
export function createBigStandings(host, app, { replay, kick }) {
  const head = h('tr');
  const body = h('tbody');
  const of = h('p', { class: 't-of' });
  const note = h('p', { class: 't-note' });

  const { form } = createFindForm({ name: 'tfind', label: Z.toFind,
    find: (nickname) => tournamentField.find(app, nickname) });
  const found = h('div', { class: 't-found', role: 'status' });
  const pager = createPager({ size: paging.PAGE, ask: (from) => tournamentField.askPage(app, from), label: Z.pages,
    mine: () => { const tour = app.state.tour; return tour && tour.field.place ? tour.field.place.rank : null; } });
  const pageHead = h('tr');
  const pageBody = h('tbody');
  const summary = h('summary');
  const pageTable = foldedTable(h('table', { class: 't-table t-field-page', 'aria-label': Z.page },
    h('thead', {}, pageHead), pageBody));
  const browser = h('details', { class: 't-browse' }, summary, form, found, pager.el, pageTable.el);
  const topTable = foldedTable(h('table', { class: 't-table t-top', 'aria-labelledby': 't-standings-title' },
    h('thead', {}, head), body));
  const el = h('section', { class: 'panel t-standings t-big', 'aria-labelledby': 't-standings-title' },
    h('h2', { id: 't-standings-title', text: N.title }), of, topTable.el, note, browser);
  host.append(el);

  let drawn = '';

  browser.addEventListener('toggle', () => {
    tournamentField.browse(app, browser.open);
    app.changed();
  });

  /** A page's name cell: a button that shows the line with its rounds. */
  function pickable(line) {
    return (text) => h('button', { class: 'link-button', type: 'button', text, 'aria-label': Z.show(line.nickname),
      onclick: () => { tournamentField.pick(app.state.tour, line); app.changed(); } });
  }

  function card(tour, { me, admin }) {
    const f = tour.field;
    if (!f.found) return [];
    if (f.found.missing) return [h('p', { class: 'field-missing', text: Z.nobodyCalled(f.found.missing) })];
    const line = { ...f.found.line, rank: f.found.rank };
    const total = tournamentField.ranked(tour);
    const items = tournamentField.roundsOf(line).map((r) => h('li', { dataset: { round: String(r.round) } },
      h('b', { text: Z.round(r.round) }),
      r.played ? `${statusText(r)} · ${r.foundation}/52 · ${TEXT.boards.moves(r.moves)} · ${money(r.vegas)}`
        + (r.rank ? Z.inRound(ordinal(r.rank)) : '')
        : Z.didNotPlay,
      r.played ? h('button', { class: 'btn small', type: 'button', text: Z.replay,
        'aria-label': Z.replayLabel(line.nickname, r.round),
        onclick: () => replay(r.round, line.player, line.nickname) }) : null));
    const out = [
      h('p', { class: 't-found-head' },
        h('b', { class: 't-found-name', text: line.player === me ? TEXT.common.you(line.nickname) : line.nickname }),
        ` · ${placeOf(line.rank, total)} · ${money(line.vegas)} · ${Z.cards(line.foundation)} · `
          + (line.wins ? Z.winsIn(line.wins, duration(line.time_ms)) : Z.noWin)
          + (line.withdrawn ? ` · ${TEXT.tournament.withdrawn}` : '')),
    ];
    if (items.length) out.push(h('ul', { class: 't-found-rounds' }, ...items));
    if (admin && !tournamentField.isOver(tour.t)) out.push(kick.buttons(line)); // once over, the standings are final
    return out;
  }

  /** s: the state; me: our player number or -1; admin: the organizer's page. */
  function render(s, { me = -1, admin = false } = {}) {
    const tour = s.tour;
    const t = tour.t;
    const f = tour.field;
    const ended = t.rounds.filter((r) => r.status === 'ended').map((r) => r.n);
    const total = tournamentField.ranked(tour);
    const key = JSON.stringify([t.top, ended, me, admin, f.place, f.page, f.found, f.browsing, total, kick.pending()]);
    if (key === drawn) return;
    drawn = key;
    const top = t.top || [];
    setText(of, top.length ? Z.topOf(count(top.length), count(total)) : Z.nobody);
    head.replaceChildren(...standingsHead(ended));
    const rows = top.map((line) => standingRow(line, { me, rounds: tournamentField.roundsOf(line) }));
    const near = paging.around(f.place).filter((line) => !top.some((x) => x.player === line.player));
    if (near.length) {
      if (near[0].rank > top.length + 1) {
        rows.push(h('tr', { class: 'gap', 'aria-hidden': 'true' }, h('td', { colspan: String(6 + ended.length), text: '⋮' })));
      }
      for (const line of near) {
        const row = standingRow(line, { me, rounds: tournamentField.roundsOf(line) });
        row.classList.add('apart');
        rows.push(row);
      }
    }
    body.replaceChildren(...rows);
    const place = f.place;
    setText(note, place && place.line ? Z.you(placeOf(place.rank, place.of), ended.length ? N.note : '')
      : ended.length ? N.note : N.noneEnded);

    setText(summary, Z.all(count(total)));
    found.replaceChildren(...card(tour, { me, admin }));
    pageHead.replaceChildren(...standingsHead(ended));
    const page = f.page;
    const lines = page ? page.lines : [];
    pageBody.replaceChildren(...lines.map((line) => {
      const row = standingRow(line, { me, rounds: tournamentField.roundsOf(line), name: pickable(line) });
      toggle(row, 'found', Boolean(f.found && f.found.player === line.player));
      return row;
    }));
    pager.render(page);
    topTable.fit();
    pageTable.fit();
  }

  return { el, render };
}
