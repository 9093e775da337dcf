/** A page's timers by name: `after(name, ms, fn)` runs `fn` once, replacing
the timer of that name if one waits; `cancel(name)` stops it. The protocol's
own waits go here (the auto-complete's next move, the next undo of "undo
back", a retry after the server said "not now"), so that each has one owner
and a new one never runs beside the old. */

export function createTimers() {
  const waiting = new Map(); // name → timeout id

  return {
    after(name, ms, fn) {
      clearTimeout(waiting.get(name));
      waiting.set(name, setTimeout(() => {
        waiting.delete(name);
        fn();
      }, ms));
    },

    cancel(name) {
      clearTimeout(waiting.get(name));
      waiting.delete(name);
    },
  };
}
