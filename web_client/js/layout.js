/** Sizes of the table from the space it has: card size, gaps, and how far
apart the cards of a column are fanned so that a long column still fits. */

const RATIO = 1.4; // card height / width

export function measure(el, { mini = false } = {}) {
  const width = el.clientWidth;
  const height = el.clientHeight;
  if (!width || !height) return null;
  const gap = Math.round(Math.min(12, Math.max(mini ? 2 : 4, (width / 7) * 0.08)));
  const byWidth = (width - 2 * gap - 6 * gap) / 7;
  // the top row plus a column of about four card heights must fit
  // (a short screen, a phone on its side, takes bigger cards and scrolls a long column)
  const rows = mini ? 4.2 : height < 500 ? 3.8 : 4.7;
  const byHeight = (height - 2 * gap - 1.5 * gap) / RATIO / rows;
  const cardW = Math.floor(Math.max(mini ? 14 : 24, Math.min(byWidth, byHeight, 120)));
  const cardH = Math.round(cardW * RATIO);
  const columnH = Math.max(cardH, height - 2 * gap - 1.5 * gap - cardH);
  return { width, height, gap, cardW, cardH, columnH };
}

/** The top of each card of a column (face-down first), and where the next card would go. */
export function fan(down, up, size, { mini = false } = {}) {
  const { cardH, columnH } = size;
  let stepDown = cardH * (mini ? 0.1 : 0.13);
  let stepUp = cardH * (mini ? 0.26 : 0.27);
  const need = () => down * stepDown + Math.max(0, up - 1) * stepUp + cardH;
  if (need() > columnH && up > 1) {
    stepUp = Math.max(cardH * 0.24, (columnH - cardH - down * stepDown) / (up - 1));
  }
  if (need() > columnH && down > 0) {
    stepDown = Math.max(cardH * 0.05, (columnH - cardH - Math.max(0, up - 1) * stepUp) / down);
  }
  const tops = [];
  for (let i = 0; i < down; i++) tops.push(Math.round(i * stepDown));
  for (let j = 0; j < up; j++) tops.push(Math.round(down * stepDown + j * stepUp));
  const next = up ? Math.round(down * stepDown + up * stepUp) : Math.round(down * stepDown);
  return { tops, next };
}

/** How far apart the waste's fan (draw three) is spread. */
export function fanStep(size) {
  return Math.round(size.cardW * 0.45);
}
