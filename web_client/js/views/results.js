/** The results of a race: the ranking, the player's own figures, the deal's
code (revealed now) with a copy button, and what to do next. A big room's
results are its top lines (`room.results`), the viewer's own final place
below them when it is not among them, and the way to the whole field. */

import { h, setText, show, toggle } from '../dom.js';
import { count, duration, score as scoreText } from '../format.js';
import { placeText } from '../ranking.js';
import { statusText } from './leaderboard.js';
import { createPodium } from './podium.js';
import { createFold, foldSub } from './fold.js';
import { say } from '../messages.js';
import { plural } from '../cards.js';

/** What became of a line that did not finish, in a sentence's words. */
const ENDINGS = { resigned: 'Resigned', left: 'Left the race', unfinished: 'Time ran out', disconnected: 'Disconnected' };

export function createResults(host, actions) {
  const heading = h('h2', { id: 'results-title' });
  const mine = h('p', { class: 'results-mine' });
  const body = h('tbody');
  const code = h('code', { class: 'results-code' });
  const copy = h('button', { class: 'btn small', type: 'button', text: 'Copy code', onclick: () => copyCode() });
  const rematch = h('button', { class: 'btn primary', type: 'button', text: 'Rematch', onclick: () => actions.rematch() });
  const solo = h('button', { class: 'btn accent', type: 'button', text: 'Play this deal solo', onclick: () => actions.solo(code.textContent) });
  const fresh = h('button', { class: 'btn', type: 'button', text: 'New solo deal', onclick: () => actions.fresh() });
  const close = h('button', { class: 'btn', type: 'button', text: 'View the board', onclick: () => actions.hide() });
  const leave = h('button', { class: 'btn ghost', type: 'button', text: 'Back to the lobby', onclick: () => actions.leave() });
  const rest = h('p', { class: 'results-rest', hidden: true });
  const whole = h('button', { class: 'btn small', type: 'button', text: 'The whole field',
    onclick: () => actions.field && actions.field() });
  const el = h('section', { class: 'results', role: 'dialog', 'aria-labelledby': 'results-title', hidden: true },
    heading,
    mine);
  const podium = createPodium(el, { label: 'Podium of the race' });
  // on a phone the cards, moves and passes fold under each name, on demand
  const EXTRA = new Set(['Cards', 'Moves', 'Passes']);
  const table = h('table', { class: 'results-table' },
    h('thead', {}, h('tr', {},
      ...['#', 'Player', 'Result', 'Cards', 'Moves', 'Passes', 'Score'].map((t) => h('th', {
        scope: 'col', text: t, class: EXTRA.has(t) ? `extra${t === 'Passes' ? ' passes' : ''}` : '' })))),
    body);
  const tableBox = h('div', { class: 'fold-wrap' }, table);
  const fold = createFold(tableBox, table, 'Cards, moves, passes');
  el.append(
    fold.button,
    tableBox,
    rest,
    h('p', { class: 'results-deal' }, h('span', { text: 'The deal: ' }), code, copy),
    h('div', { class: 'results-actions' }, rematch, solo, fresh, close, leave));
  host.append(el);
  let drawn = '';

  async function copyCode() {
    const text = code.textContent;
    try {
      await navigator.clipboard.writeText(text);
      say(`Copied ${text}`);
    } catch {
      const range = document.createRange();
      range.selectNodeContents(code);
      getSelection().removeAllRanges();
      getSelection().addRange(range);
      say('Selected: press Ctrl+C (or ⌘C) to copy.');
    }
  }

  function row(e, me, scoring, apart = false) {
    const moves = e.moves == null ? '' : String(e.moves);
    const passes = e.recycles == null ? '' : String(e.recycles);
    const tr = h('tr', { class: e.seat === me ? 'me' : '' },
      h('td', { text: String(e.rank) }),
      h('td', { class: 'name', text: e.nickname + (e.seat === me ? ' (you)' : ''),
        dataset: { sub: foldSub([`${e.foundation}/52 cards`, moves && plural(e.moves, 'move'), passes && plural(e.recycles, 'pass', 'passes')]) } }),
      h('td', { text: statusText(e) }),
      h('td', { class: 'extra', text: `${e.foundation}/52` }),
      h('td', { class: 'extra', text: moves }),
      h('td', { class: 'extra passes', text: passes }),
      h('td', { text: scoreText(e, scoring) }));
    if (apart) tr.classList.add('apart');
    return tr;
  }

  /** room: the ended room; me: own seat or -1; host: may ask for a rematch;
  field (a big room): {mine, total}, the own final place and the field's size. */
  function render(room, { me = -1, visible = true, field = null } = {}) {
    const on = Boolean(room && room.phase === 'ended' && visible);
    show(el, on);
    if (!on) return;
    const results = room.results || [];
    const scoring = room.settings.scoring;
    const soloGame = Boolean(room.settings.solo);
    toggle(table, 'no-passes', Boolean(field)); // a big room's lines do not count passes
    const key = JSON.stringify([room.id, room.race, results, me, room.host, field]);
    if (key !== drawn) {
      drawn = key;
      const listed = results.find((e) => e.seat === me);
      const own = listed || (field && field.mine ? finalLine(field.mine) : null);
      const total = field ? Math.max(field.total, results.length) : results.length;
      body.replaceChildren(...results.map((e) => row(e, me, scoring)),
        ...(own && !listed ? [row(own, me, scoring, true)] : []));
      fold.fit();
      const more = total - results.length - (own && !listed ? 1 : 0);
      show(rest, Boolean(field));
      if (field) {
        rest.replaceChildren(...(more > 0 ? [h('span', { text: `and ${count(more)} more in the field ` })] : []), whole);
      }
      if (own) {
        const won = own.status === 'finished';
        setText(heading, placeText(own, total, { solo: soloGame }));
        const how = won ? `${soloGame ? 'Solved in' : 'Your time'} ${duration(own.finish_ms)}`
          : ENDINGS[own.status] ?? statusText(own);
        setText(mine, [how, plural(own.moves, 'move'), own.recycles == null ? null : plural(own.recycles, 'pass', 'passes'),
          `${own.foundation} cards placed`, scoreText(own, scoring)].filter(Boolean).join(' · '));
      } else {
        setText(heading, 'The race is over');
        const first = results[0];
        setText(mine, first ? (first.status === 'finished' ? `Won by ${first.nickname} in ${duration(first.finish_ms)}`
          : `Nobody finished: ${first.nickname} went furthest`) : '');
      }
      podium.render(results, { me, visible: !soloGame && results.length > 1 });
    }
    setText(code, room.code || '');
    show(rematch, me >= 0 && room.host === me && !room.settings.solo);
    show(fresh, Boolean(room.settings.solo) && me >= 0);
  }

  return { el, render };
}

/** A line as results show it: still racing when the race ended is unfinished. */
function finalLine(line) {
  return line.status === 'racing' ? { ...line, status: 'unfinished' } : line;
}
