/** The waiting room: the link to share, the settings, the players with their
ready flags; the host starts the race or removes a player. */

import { h, setText, show, toggle } from '../dom.js';
import * as rooms from '../rooms.js';
import { count, duration, modeText, windowText } from '../format.js';
import { say } from '../messages.js';

export function settingsText(s) {
  const parts = [modeText(s),
    s.fixed_code ? 'a chosen deal' : s.deal === 'winnable' ? 'a random winnable deal' : 'a random deal',
    `up to ${count(s.max_players)} players`, `undo ${s.undo ? 'on' : 'off'}`,
    s.assists === 'solver' ? 'hints and winnability on' : `hints ${s.hints ? 'on' : 'off'}`,
    s.time_limit ? `${Math.round(s.time_limit / 60)} min limit${s.window ? ' each' : ''}` : 'no time limit',
    s.boards === 'live' ? 'spectators see boards live'
      : s.boards === 'delayed' ? `spectators see boards ${s.delay} s late`
        : `spectators see boards after the ${s.window ? 'close' : 'race'}`];
  if (s.big) parts.push(`the top ${s.top} on the leaderboard`);
  if (s.public) parts.push(s.quick ? 'a quick race, listed in the lobby' : 'public: listed in the lobby');
  if (s.window) parts.unshift(`A challenge open ${windowText(s.window)}, each on their own clock`);
  else if (s.big || s.late === 'admit') {
    parts.push(s.late === 'admit' ? 'late arrivals race on their own clock' : 'no joining once the race runs');
  }
  return parts.join(' · ');
}

export async function copy(input, what) {
  try {
    await navigator.clipboard.writeText(input.value);
    say(`${what} copied.`);
  } catch {
    input.select();
    say('Selected: press Ctrl+C (or ⌘C) to copy.');
  }
}

function playerItem(app, p, room, me) {
  const quick = Boolean(room.settings.quick); // it starts by itself: no host to start it, nobody to be ready
  const isHost = p.seat === room.host && !quick;
  return h('li', { class: p.ready || isHost || quick ? 'ready' : '' },
    h('span', { class: 'player-name', text: p.nickname + (p.seat === me ? ' (you)' : '') }),
    isHost ? h('span', { class: 'badge', text: 'host' }) : null,
    quick ? null : h('span', { class: 'player-ready', text: isHost ? 'starts the race' : p.ready ? '✓ ready' : 'not ready' }),
    room.host === me && p.seat !== me && !quick
      ? h('button', { class: 'btn small ghost', type: 'button', text: 'Remove', 'aria-label': `Remove ${p.nickname}`,
        onclick: () => rooms.kick(app, p.seat) })
      : null);
}

/** The invitation: the players' and the spectators' links, and the settings. */
export function createInvite() {
  const link = h('input', { type: 'text', readOnly: true, class: 'share-link', 'aria-label': 'Room link' });
  const watchLink = h('input', { type: 'text', readOnly: true, class: 'share-link', 'aria-label': 'Spectator link' });
  const settings = h('p', { class: 'room-settings' });
  const el = h('div', { class: 'panel' },
    h('h2', { text: 'Invite' }),
    h('div', { class: 'share' }, h('span', { text: 'Players:' }), link,
      h('button', { class: 'btn small', type: 'button', text: 'Copy link', onclick: () => copy(link, 'Room link') })),
    h('div', { class: 'share' }, h('span', { text: 'Spectators:' }), watchLink,
      h('button', { class: 'btn small', type: 'button', text: 'Copy', onclick: () => copy(watchLink, 'Spectator link') })),
    settings);

  function render(room) {
    const url = `${location.origin}/r/${room.id}`;
    if (link.value !== url) link.value = url;
    if (watchLink.value !== `${url}?watch`) watchLink.value = `${url}?watch`;
    setText(settings, settingsText(room.settings));
  }

  return { el, render };
}

export function createRoom(root, app) {
  const title = h('h1', { id: 'room-title' });
  const invite = createInvite();
  const players = h('ul', { class: 'players', 'aria-label': 'Players' });
  const readyBtn = h('button', { class: 'btn primary', type: 'button' });
  const startBtn = h('button', { class: 'btn primary', type: 'button', text: 'Start the race', onclick: () => rooms.start(app) });
  const waitText = h('p', { class: 'room-wait', role: 'status' });
  const el = h('section', { class: 'screen room panel-page', 'aria-labelledby': 'room-title' },
    title,
    invite.el,
    h('div', { class: 'panel' },
      h('h2', { text: 'Players' }),
      players,
      waitText,
      h('div', { class: 'buttons' }, readyBtn, startBtn,
        h('button', { class: 'btn ghost', type: 'button', text: 'Leave the room', onclick: () => rooms.leave(app) }))));
  root.append(el);
  let ready = false;
  let drawn = '';
  let ticking = 0; // a quick race's start, counted down
  readyBtn.addEventListener('click', () => rooms.ready(app, !ready));

  function render(s) {
    const room = s.room;
    const host = room.host === s.seat;
    setText(title, `Room ${room.id}`);
    app.title.screen(`Klondike Race — room ${room.id}`);
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
    setText(readyBtn, ready ? 'Not ready after all' : "I'm ready");
    toggle(readyBtn, 'primary', !ready);
    show(startBtn, host);
    if (room.settings.quick) { // it starts by itself: nobody is ready or starts it
      show(readyBtn, false);
      show(startBtn, false);
      const left = room.start_at != null ? room.start_at - app.clock.now() : null;
      setText(waitText, left == null
        ? `A quick race: it starts by itself ${room.settings.quick} s after a second player arrives.`
        : `The race starts in ${duration(Math.max(0, left))}.`);
      if (left != null && !ticking) ticking = setTimeout(() => { ticking = 0; app.changed(); }, 1000);
      return;
    }
    const waiting = present.filter((p) => p.seat !== room.host && !p.ready).map((p) => p.nickname);
    setText(waitText, waiting.length ? `Waiting for ${waiting.join(', ')} to be ready.`
      : host ? (present.length > 1 ? 'Everyone is ready: start when you like.' : 'Share the link, or start alone.')
        : 'Waiting for the host to start.');
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
