/** The waiting room: the link to share, the settings, the players with their
ready flags; the host starts the race or removes a player. */

import { h, setText, show, toggle } from '../dom.js';
import * as rooms from '../rooms.js';
import { count, duration, modeText, windowText } from '../format.js';
import { say } from '../messages.js';
import { TEXT } from '../text.js';

const [R, C] = [TEXT.room, TEXT.common];

function settingsText(s) {
  const parts = [modeText(s),
    s.fixed_code ? R.chosenDeal : s.deal === 'winnable' ? R.winnableDeal : R.randomDeal,
    R.upTo(count(s.max_players)), s.undo ? R.undoOn : R.undoOff,
    s.assists === 'solver' ? R.solverOn : s.hints ? R.hintsOn : R.hintsOff,
    s.time_limit ? R.limit(Math.round(s.time_limit / 60), Boolean(s.window)) : R.noLimit,
    s.boards === 'live' ? R.boardsLive
      : s.boards === 'delayed' ? R.boardsDelayed(s.delay) : s.window ? R.boardsAfterClose : R.boardsAfter];
  if (s.big) parts.push(R.top(s.top));
  if (s.public) parts.push(s.quick ? R.quickListed : R.publicListed);
  if (s.rated) parts.push(R.ratedRace);
  if (s.window) parts.unshift(R.challenge(windowText(s.window)));
  else if (s.big || s.late === 'admit') {
    parts.push(s.late === 'admit' ? R.lateAdmit : R.lateRefuse);
  }
  return parts.join(' · ');
}

/** Copy the text of `input`, saying `done` ("Room link copied."); where the
clipboard is closed to us, select it for the player to copy. */
export async function copy(input, done) {
  try {
    await navigator.clipboard.writeText(input.value);
    say(done);
  } catch {
    input.select();
    say(C.selected);
  }
}

function playerItem(app, p, room, me) {
  const quick = Boolean(room.settings.quick); // it starts by itself: no host to start it, nobody to be ready
  const isHost = p.seat === room.host && !quick;
  return h('li', { class: p.ready || isHost || quick ? 'ready' : '' },
    h('span', { class: 'player-name', text: p.seat === me ? C.you(p.nickname) : p.nickname }),
    isHost ? h('span', { class: 'badge', text: R.host }) : null,
    quick ? null : h('span', { class: 'player-ready', text: isHost ? R.startsRace : p.ready ? R.isReady : R.notReady }),
    room.host === me && p.seat !== me && !quick
      ? h('button', { class: 'btn small ghost', type: 'button', text: R.remove, 'aria-label': R.removeLabel(p.nickname),
        onclick: () => rooms.kick(app, p.seat) })
      : null);
}

/** The invitation: the players' and the spectators' links, and the settings. */
export function createInvite() {
  const link = h('input', { type: 'text', readOnly: true, class: 'share-link', 'aria-label': R.roomLink });
  const watchLink = h('input', { type: 'text', readOnly: true, class: 'share-link', 'aria-label': R.spectatorLink });
  const settings = h('p', { class: 'room-settings' });
  const el = h('div', { class: 'panel' },
    h('h2', { text: R.invite }),
    h('div', { class: 'share' }, h('span', { text: R.playersColon }), link,
      h('button', { class: 'btn small', type: 'button', text: R.copyLink, onclick: () => copy(link, R.roomLinkCopied) })),
    h('div', { class: 'share' }, h('span', { text: R.spectatorsColon }), watchLink,
      h('button', { class: 'btn small', type: 'button', text: R.copy, onclick: () => copy(watchLink, R.spectatorLinkCopied) })),
    settings);

  function render(room) {
    const url = `${location.origin}/r/${room.id}`;
    if (link.value !== url) link.value = url;
    if (watchLink.value !== `${url}?watch`) watchLink.value = `${url}?watch`;
    setText(settings, settingsText(room.settings));
  }

  return { el, render };
}

/** A waiting quick race's pairing at `now` (server time): the server's
window (docs/protocol.md, "Races to find", "Quick race") widened on our clock as the server
widens it, `base` ± when it opened and `widen` more each second; anyone
from `anyone_at`. */
function pairingNow(pairing, now) {
  if (!pairing) return null;
  const half = pairing.base + pairing.widen * Math.floor(Math.max(0, now - pairing.opened) / 1000);
  return { opened: pairing.opened, anyone: now >= pairing.anyone_at,
    low: pairing.rating - half, high: pairing.rating + half };
}

export function createRoom(root, app) {
  const title = h('h1', { id: 'room-title' });
  const invite = createInvite();
  const players = h('ul', { class: 'players', 'aria-label': R.players });
  const readyBtn = h('button', { class: 'btn primary', type: 'button' });
  const startBtn = h('button', { class: 'btn primary', type: 'button', text: R.start, onclick: () => rooms.start(app) });
  const waitText = h('p', { class: 'room-wait', role: 'status' });
  const pairingText = h('p', { class: 'room-pairing', hidden: true }); // a quick race's wait and whom it accepts
  const el = h('section', { class: 'screen room panel-page', 'aria-labelledby': 'room-title' },
    title,
    invite.el,
    h('div', { class: 'panel' },
      h('h2', { text: R.players }),
      players,
      waitText,
      pairingText,
      h('div', { class: 'buttons' }, readyBtn, startBtn,
        h('button', { class: 'btn ghost', type: 'button', text: R.leave, onclick: () => rooms.leave(app) }))));
  root.append(el);
  let ready = false;
  let drawn = '';
  let ticking = 0; // a quick race's start, counted down
  readyBtn.addEventListener('click', () => rooms.ready(app, !ready));

  function render(s) {
    const room = s.room;
    const host = room.host === s.seat;
    setText(title, C.room(room.id));
    app.title.screen(C.pageRoom(room.id));
    invite.render(room);

    const present = room.players.filter((p) => !p.left);
    const key = JSON.stringify([present, room.host, s.seat]);
    if (key !== drawn) {
      drawn = key;
      players.replaceChildren(...present.map((p) => playerItem(app, p, room, s.seat)));
    }

    const me = present.find((p) => p.seat === s.seat);
    ready = Boolean(me && me.ready);
    show(readyBtn, !host);
    setText(readyBtn, ready ? R.notReadyAfterAll : R.ready);
    toggle(readyBtn, 'primary', !ready);
    show(startBtn, host);
    if (room.settings.quick) { // it starts by itself: nobody is ready or starts it
      show(readyBtn, false);
      show(startBtn, false);
      const now = app.clock.now();
      const left = room.start_at != null ? room.start_at - now : null;
      setText(waitText, left == null ? R.quickWait(room.settings.quick) : R.startsIn(duration(Math.max(0, left))));
      const pairing = left == null ? pairingNow(room.pairing, now) : null;
      show(pairingText, Boolean(pairing));
      if (pairing) {
        const wait = duration(Math.max(0, now - pairing.opened));
        setText(pairingText, pairing.anyone ? R.pairingAnyone(wait) : R.pairing(wait, pairing.low, pairing.high));
      }
      if ((left != null || pairing) && !ticking) ticking = setTimeout(() => { ticking = 0; app.changed(); }, 1000);
      return;
    }
    show(pairingText, false);
    const waiting = present.filter((p) => p.seat !== room.host && !p.ready).map((p) => p.nickname);
    setText(waitText, waiting.length ? R.waitingFor(waiting.join(', '), waiting.length)
      : host ? (present.length > 1 ? R.allReady : R.shareOrAlone)
        : R.waitingHost);
  }

  return {
    el,
    show() { el.hidden = false; },
    hide() {
      el.hidden = true;
      clearTimeout(ticking);
      ticking = 0;
    },
    render,
  };
}
