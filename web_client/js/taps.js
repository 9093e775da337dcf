/** Buttons act like cards: on the pointer-up of a tap that began on them.

A browser turns a tap into a `click` by gestures of its own, and on a touch
phone it sometimes makes none: a tap on Undo just after a card was dragged
got its pointer and touch events and no click (issue 25). The table's cards
already act on pointer-up (drag.js); here every button of the page does the
same: a press that begins on a button and is let go on it, with no cancel in
between (a scroll, a pan), clicks it then; the browser's own click, if it
comes, is dropped. A press that began elsewhere and ends on a button does
nothing; the keyboard (Enter, Space) still clicks as the browser does. */

const CONTROL = 'button, summary'; // what a tap acts on: a button, a <details>'s summary
const pressed = new Map(); // pointerId → the button the press began on

function buttonAt(e) {
  const under = document.elementFromPoint(e.clientX, e.clientY);
  return under ? under.closest(CONTROL) : null;
}

/** Make every button of `root` act on the pointer-up of a tap that began on it. */
export function attachTaps(root = document) {
  let clicked = null; // the button clicked on a pointer-up: the browser's click after it is ours already

  root.addEventListener('pointerdown', (e) => {
    clicked = null;
    if (e.pointerType === 'mouse' && e.button !== 0) return;
    const button = e.target instanceof Element ? e.target.closest(CONTROL) : null;
    if (button) pressed.set(e.pointerId, button);
    else pressed.delete(e.pointerId);
  }, true);

  root.addEventListener('pointercancel', (e) => pressed.delete(e.pointerId), true);

  root.addEventListener('pointerup', (e) => {
    const button = pressed.get(e.pointerId);
    pressed.delete(e.pointerId);
    if (!button || button.matches(':disabled') || !button.isConnected || buttonAt(e) !== button) return;
    clicked = button;
    button.click();
  }, true);

  root.addEventListener('click', (e) => {
    const button = e.target instanceof Element ? e.target.closest(CONTROL) : null;
    if (!e.isTrusted || !clicked) return;
    // the browser's click of a press already acted on (a keyboard's click has no pointer: detail 0)
    if (button === clicked && e.detail > 0) {
      e.preventDefault();
      e.stopImmediatePropagation();
    }
    clicked = null;
  }, true);
}
