/** FLIP animations: an element already in its new place slides from where it was. */

const reduced = matchMedia('(prefers-reduced-motion: reduce)');

export function animationsOn() {
  return !reduced.matches;
}

/** Slide `el` from `old` (a DOMRect) to where it is now. */
export function flipFrom(el, old, { duration = 180, lift = '' } = {}) {
  if (!old || !animationsOn()) return;
  const now = el.getBoundingClientRect();
  const dx = old.left - now.left;
  const dy = old.top - now.top;
  if (Math.abs(dx) < 1 && Math.abs(dy) < 1) return;
  if (lift) el.classList.add(lift);
  const anim = el.animate(
    [{ transform: `translate(${dx}px, ${dy}px)` }, { transform: 'translate(0, 0)' }],
    { duration, easing: 'cubic-bezier(.2,.7,.3,1)' },
  );
  if (lift) {
    const done = () => el.classList.remove(lift);
    anim.onfinish = done;
    anim.oncancel = done;
  }
}

/** Reorder a list without jumps: measure, change, then slide each child. */
export function flipList(container, change) {
  const before = new Map();
  for (const child of container.children) before.set(child, child.getBoundingClientRect());
  change();
  for (const child of container.children) flipFrom(child, before.get(child), { duration: 300 });
}
