/** Card motion: FLIP slides (an element already in its new place slides from
where it was) and turning a card over. Transforms only, so the compositor
runs them (smooth on a phone); nothing moves when the player asks for
reduced motion (`prefers-reduced-motion`). */

const reduced = matchMedia('(prefers-reduced-motion: reduce)');

export function animationsOn() {
  return !reduced.matches;
}

/** Slide `el` from `old` (a DOMRect) to where it is now. */
export function flipFrom(el, old, { duration = 180, delay = 0, lift = '' } = {}) {
  if (!old || !animationsOn()) return;
  const now = el.getBoundingClientRect();
  const dx = old.left - now.left;
  const dy = old.top - now.top;
  if (Math.abs(dx) < 1 && Math.abs(dy) < 1) return;
  if (lift) el.classList.add(lift);
  const anim = el.animate(
    [{ transform: `translate(${dx}px, ${dy}px)` }, { transform: 'translate(0, 0)' }],
    { duration, delay, easing: 'cubic-bezier(.2,.7,.3,1)', fill: 'backwards' },
  );
  if (lift) {
    const done = () => el.classList.remove(lift);
    anim.onfinish = done;
    anim.oncancel = done;
  }
}

/** Turn a face-up card over from its back: it narrows showing the back, then
widens showing its face (the `scale` property, so that it composes with a slide). */
export function turnOver(el, { duration = 200, delay = 0 } = {}) {
  if (!animationsOn()) return;
  const timing = { duration, delay, fill: 'backwards' };
  el.animate([{ scale: '1 1' }, { scale: '0.04 1', offset: 0.5 }, { scale: '1 1' }],
    { ...timing, easing: 'ease-in-out' });
  el.animate([{ opacity: 1 }, { opacity: 1, offset: 0.5 }, { opacity: 0, offset: 0.5 }, { opacity: 0 }],
    { ...timing, pseudoElement: '::after' });
}

/** A short shake from side to side: these cards cannot go anywhere. Under
reduced motion they dim for a moment instead. */
export function shake(el) {
  if (!animationsOn()) {
    el.animate([{ filter: 'brightness(0.75)' }, { filter: 'none' }], { duration: 300 });
    return;
  }
  const x = (d) => ({ translate: `${d}px 0` });
  el.animate([x(0), x(-6), x(6), x(-4), x(4), x(0)], { duration: 320, easing: 'ease-in-out' });
}

/** Reorder a list without jumps: measure, change, then slide each child. */
export function flipList(container, change) {
  const before = new Map();
  for (const child of container.children) before.set(child, child.getBoundingClientRect());
  change();
  for (const child of container.children) flipFrom(child, before.get(child), { duration: 300 });
}
