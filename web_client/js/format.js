/** How figures read: money, points, times, ranks (the words are the catalogue's, text.js). */

import { TEXT } from './text.js';

/** Vegas dollars: +$208, $0, -$52. */
export function money(v) {
  if (v > 0) return `+$${v}`;
  if (v < 0) return `-$${-v}`;
  return '$0';
}

/** The score the deal's scoring letter shows, with its unit: "+$208" (Vegas) or "15 pts" (Normal). */
export function score(figures, scoring) {
  if (scoring === 'V') return money(figures.vegas);
  return TEXT.format.points(figures.points ?? 0);
}

/** 75 000 ms → "1:15"; an hour and more → "1:02:03". */
export function duration(ms) {
  const total = Math.max(0, Math.floor(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = String(total % 60).padStart(2, '0');
  return h ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}

/** A long time ahead: "2 days 4:05:12", "4:05:12", "12:07". */
export function timeLeft(ms) {
  const days = Math.floor(Math.max(0, ms) / 86400000);
  const rest = duration(ms - days * 86400000);
  return days ? TEXT.format.daysAnd(days, rest) : rest;
}

/** A challenge's window in words: "10 minutes", "3 hours", "2 days". */
export function windowText(seconds) {
  const [n, unit] = seconds % 86400 === 0 ? [seconds / 86400, 'days'] : seconds % 3600 === 0
    ? [seconds / 3600, 'hours'] : [Math.round(seconds / 60), 'minutes'];
  return TEXT.format[unit](n);
}

/** 4212 → "4 212": thousands apart by a narrow no-break space, as a count reads. */
export function count(n) {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, '\u202f');
}

/** "37th of 4 212" ("37.º de 4 212"): a place in a field. */
export function placeOf(rank, total) {
  return TEXT.format.placeOf(ordinal(rank), count(total));
}

/** 1 → "1st" ("1.º"). */
export const ordinal = (n) => TEXT.format.ordinal(n);

/** "3 cards" ("3 cartas"). */
export const cards = (n) => TEXT.format.cards(n);

/** The mode where room is short (a phone's top bar): "Draw 1 · Normal". */
export function modeShort(settings) {
  if (!settings) return '';
  const f = TEXT.format;
  return `${f.drawShort(settings.draw === 3 ? 3 : 1)} · ${settings.scoring === 'V' ? f.vegas : f.normal}`;
}

export function modeText(settings) {
  if (!settings) return '';
  const f = TEXT.format;
  return `${settings.draw === 3 ? f.drawThree : f.drawOne} · ${settings.scoring === 'V' ? f.vegas : f.normal}`;
}
