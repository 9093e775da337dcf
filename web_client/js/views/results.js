/** The results of a race: the ranking, the player's own figures, the deal's
code (revealed now) with a copy button, and what to do next. */

import { h, setText, show } from '../dom.js';
import { duration, score as scoreText } from '../format.js';
import { placeText } from '../ranking.js';
import { statusText } from './leaderboard.js';
import { createPodium } from './podium.js';
import { say } from '../messages.js';

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
  const el = h('section', { class: 'results', role: 'dialog', 'aria-labelledby': 'results-title', hidden: true },
    heading,
    mine);
  const podium = createPodium(el, { label: 'Podium of the race' });
  el.append(
    h('table', { class: 'results-table' },
      h('thead', {}, h('tr', {},
        ...['#', 'Player', 'Result', 'Cards', 'Moves', 'Passes', 'Score'].map((t) => h('th', { scope: 'col', text: t })))),
      body),
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

  /** room: the ended room; me: own seat or -1; host: may ask for a rematch. */
  function render(room, { me = -1, visible = true } = {}) {
    const on = Boolean(room && room.phase === 'ended' && visible);
    show(el, on);
    if (!on) return;
    const results = room.results || [];
    const scoring = room.settings.scoring;
    const soloGame = Boolean(room.settings.solo);
    const key = JSON.stringify([room.id, room.race, results, me, room.host]);
    if (key !== drawn) {
      drawn = key;
      body.replaceChildren(...results.map((e) => h('tr', { class: e.seat === me ? 'me' : '' },
        h('td', { text: String(e.rank) }),
        h('td', { text: e.nickname + (e.seat === me ? ' (you)' : '') }),
        h('td', { text: statusText(e) }),
        h('td', { text: `${e.foundation}/52` }),
        h('td', { text: String(e.moves) }),
        h('td', { text: String(e.recycles) }),
        h('td', { text: scoreText(e, scoring) }))));
      const own = results.find((e) => e.seat === me);
      if (own) {
        const won = own.status === 'finished';
        setText(heading, placeText(own, results.length, { solo: soloGame }));
        const how = won ? `${soloGame ? 'Solved in' : 'Your time'} ${duration(own.finish_ms)}`
          : ENDINGS[own.status] ?? statusText(own);
        setText(mine, `${how} · ${own.moves} moves · ${own.recycles} passes · `
          + `${own.foundation} cards placed · ${scoreText(own, scoring)}`);
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
