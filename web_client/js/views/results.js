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
import { TEXT } from '../text.js';

const S = TEXT.results;

export function createResults(host, actions) {
  const heading = h('h2', { id: 'results-title' });
  const mine = h('p', { class: 'results-mine' });
  const rated = h('p', { class: 'results-rating', hidden: true }); // a rated race: the own rating, its change
  const body = h('tbody');
  const code = h('code', { class: 'results-code' });
  const copy = h('button', { class: 'btn small', type: 'button', text: S.copyCode, onclick: () => copyCode() });
  const rematch = h('button', { class: 'btn primary', type: 'button', text: S.rematch, onclick: () => actions.rematch() });
  const solo = h('button', { class: 'btn accent', type: 'button', text: S.playSolo, onclick: () => actions.solo(code.textContent) });
  const fresh = h('button', { class: 'btn', type: 'button', text: S.newSolo, onclick: () => actions.fresh() });
  const close = h('button', { class: 'btn', type: 'button', text: S.viewBoard, onclick: () => actions.hide() });
  const leave = h('button', { class: 'btn ghost', type: 'button', text: S.backToLobby, onclick: () => actions.leave() });
  const rest = h('p', { class: 'results-rest', hidden: true });
  const whole = h('button', { class: 'btn small', type: 'button', text: S.whole,
    onclick: () => actions.field && actions.field() });
  const el = h('section', { class: 'results', role: 'dialog', 'aria-labelledby': 'results-title', hidden: true },
    heading,
    mine,
    rated);
  const podium = createPodium(el, { label: S.podium });
  // on a phone the cards, moves and passes (the `extra` columns) fold under each name, on demand
  const table = h('table', { class: 'results-table' },
    h('thead', {}, h('tr', {},
      ...[{ text: '#' }, { text: S.player }, { text: S.result }, { text: S.cards, class: 'extra' },
        { text: S.moves, class: 'extra' }, { text: S.passes, class: 'extra passes' }, { text: S.score }]
        .map((col) => h('th', { scope: 'col', ...col })))),
    body);
  const tableBox = h('div', { class: 'fold-wrap' }, table);
  const fold = createFold(tableBox, table, S.fold);
  el.append(
    fold.button,
    tableBox,
    rest,
    h('p', { class: 'results-deal' }, h('span', { text: S.deal }), code, copy),
    h('div', { class: 'results-actions' }, rematch, solo, fresh, close, leave));
  host.append(el);
  let drawn = '';

  async function copyCode() {
    const text = code.textContent;
    try {
      await navigator.clipboard.writeText(text);
      say(S.copied(text));
    } catch {
      const range = document.createRange();
      range.selectNodeContents(code);
      getSelection().removeAllRanges();
      getSelection().addRange(range);
      say(TEXT.common.selected);
    }
  }

  function row(e, me, scoring, apart = false) {
    const moves = e.moves == null ? '' : String(e.moves);
    const passes = e.recycles == null ? '' : String(e.recycles);
    const tr = h('tr', { class: e.seat === me ? 'me' : '' },
      h('td', { text: String(e.rank) }),
      h('td', { class: 'name', text: e.seat === me ? TEXT.common.you(e.nickname) : e.nickname,
        dataset: { sub: foldSub([S.subCards(e.foundation), moves && TEXT.boards.moves(e.moves),
          passes && S.ownPasses(e.recycles)]) } }),
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
        rest.replaceChildren(...(more > 0 ? [h('span', { text: S.more(count(more)) })] : []), whole);
      }
      if (own) {
        const won = own.status === 'finished';
        setText(heading, placeText(own, total, { solo: soloGame }));
        const how = won ? (soloGame ? S.solvedIn : S.yourTime)(duration(own.finish_ms))
          : S.endings[own.status] ?? statusText(own);
        setText(mine, [how, TEXT.boards.moves(own.moves), own.recycles == null ? null : S.ownPasses(own.recycles),
          S.placed(own.foundation), scoreText(own, scoring)].filter(Boolean).join(' · '));
      } else {
        setText(heading, S.raceOver);
        const first = results[0];
        setText(mine, first ? (first.status === 'finished' ? S.wonBy(first.nickname, duration(first.finish_ms))
          : S.nobody(first.nickname)) : '');
      }
      show(rated, Boolean(own && own.rating != null));
      if (own && own.rating != null) setText(rated, S.rating(ratingText(own), changeText(own.change)));
      podium.render(results, { me, visible: !soloGame && results.length > 1 });
    }
    setText(code, room.code || '');
    show(rematch, me >= 0 && room.host === me && !room.settings.solo);
    show(fresh, Boolean(room.settings.solo) && me >= 0);
  }

  return { el, render };
}

/** A rating as players see it: "1514", "1514?" while provisional. */
export function ratingText({ rating, provisional }) {
  return `${rating}${provisional ? '?' : ''}`;
}

/** A rating's change: "+14", "−19", "±0". */
function changeText(change) {
  return change > 0 ? `+${change}` : change < 0 ? `−${-change}` : '±0';
}

/** A line as results show it: still racing when the race ended is unfinished. */
function finalLine(line) {
  return line.status === 'racing' ? { ...line, status: 'unfinished' } : line;
}
