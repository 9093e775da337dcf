/** The winner's celebration, the classic cascade: the cards leave the
foundations one after the other, kings first, fall and bounce along the
bottom of the table, leaving their trail, until they are off the table.

It is drawn on a canvas over the table (one image per card, made from its
SVG face once), runs for a few seconds (at most LONGEST: the results wait
for it) and ends by itself or at a tap or a key, which a line over it says;
with `prefers-reduced-motion` it does not run at all.
*/

import { faceSvg } from './faces.js';
import { animationsOn } from './flip.js';
import { SUITS } from './cards.js';

const RANKS = 'KQJT98765432A';
const GRAVITY = 0.55; // px per frame², at 60 frames a second
const BOUNCE = 0.72; // the speed a bounce keeps
const EVERY = 70; // ms between two cards leaving: the 52 are gone in under 4 s
const AT_ONCE = 10;
const SPEED = [4, 9]; // px per frame sideways, the least and the most: a card crosses the table in 2 s or less
const LONGEST = 6500; // ms

/** Start the cascade over `host` (the table); `board` gives the foundations'
places and the card size; `skip` the line that says how to end it. Returns
a function that stops it. */
export function cascade(host, board, { onDone = () => {}, skip = '' } = {}) {
  if (!animationsOn() || !board.size) {
    onDone();
    return () => {};
  }
  const box = host.getBoundingClientRect();
  const dpr = Math.min(2, window.devicePixelRatio || 1);
  const canvas = document.createElement('canvas');
  canvas.className = 'cascade';
  canvas.setAttribute('aria-hidden', 'true');
  canvas.width = Math.round(box.width * dpr);
  canvas.height = Math.round(box.height * dpr);
  canvas.style.width = `${box.width}px`;
  canvas.style.height = `${box.height}px`;
  const hint = document.createElement('p');
  hint.className = 'cascade-skip';
  hint.textContent = skip;
  host.append(canvas, hint);
  const ctx = canvas.getContext('2d');
  ctx.scale(dpr, dpr);
  const { cardW, cardH } = board.size;

  // kings first, one suit after the other, as the classic does
  const queue = [];
  for (const rank of RANKS) {
    for (const suit of SUITS) {
      const pile = board.pileEl(`f${suit.toLowerCase()}`).getBoundingClientRect();
      queue.push({ card: rank + suit, x: pile.left - box.left, y: pile.top - box.top });
    }
  }
  const flying = [];
  let stopped = false;
  let frame = 0;
  let launcher = 0;
  let last = performance.now();
  const started = last;

  function image(card) {
    const img = new Image();
    img.src = `data:image/svg+xml,${encodeURIComponent(faceSvg(card))}`;
    return img.decode().then(() => img, () => null);
  }

  async function launch() {
    if (stopped) return;
    if (!queue.length) return;
    if (flying.length < AT_ONCE) {
      const next = queue.shift();
      const img = await image(next.card);
      if (stopped) return;
      const dir = Math.random() < 0.5 ? -1 : 1;
      flying.push({
        ...next, img, vx: dir * (SPEED[0] + Math.random() * (SPEED[1] - SPEED[0])), vy: -(Math.random() * 7),
        floor: box.height - cardH,
      });
      canvas.dataset.launched = String(52 - queue.length);
    }
    launcher = setTimeout(launch, EVERY);
  }

  function paint(f) {
    const r = Math.max(2, cardW * 0.08);
    ctx.beginPath();
    if (ctx.roundRect) ctx.roundRect(f.x, f.y, cardW, cardH, r);
    else ctx.rect(f.x, f.y, cardW, cardH);
    ctx.fillStyle = '#fffdf8';
    ctx.fill();
    ctx.strokeStyle = '#8f887a';
    ctx.lineWidth = 1;
    ctx.stroke();
    if (f.img) ctx.drawImage(f.img, f.x, f.y, cardW, cardH);
  }

  function step(now) {
    if (stopped) return;
    const k = Math.min(3, (now - last) / (1000 / 60)); // frames elapsed: the same speed at any refresh rate
    last = now;
    for (let i = flying.length - 1; i >= 0; i--) {
      const f = flying[i];
      f.vy += GRAVITY * k;
      f.x += f.vx * k;
      f.y += f.vy * k;
      if (f.y > f.floor) {
        f.y = f.floor;
        f.vy = -f.vy * BOUNCE;
      }
      paint(f);
      if (f.x < -cardW || f.x > box.width) flying.splice(i, 1);
    }
    if ((!queue.length && !flying.length) || now - started > LONGEST) {
      stop();
      return;
    }
    frame = requestAnimationFrame(step);
  }

  function stop() {
    if (stopped) return;
    stopped = true;
    cancelAnimationFrame(frame);
    clearTimeout(launcher);
    removeEventListener('keydown', stop, true);
    host.removeEventListener('pointerdown', stop, true);
    canvas.classList.add('gone');
    hint.remove();
    setTimeout(() => canvas.remove(), 400);
    onDone();
  }

  addEventListener('keydown', stop, true);
  host.addEventListener('pointerdown', stop, true);
  launch();
  frame = requestAnimationFrame(step);
  return stop;
}
