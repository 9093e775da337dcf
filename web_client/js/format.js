/** How figures read: money, points, times, ranks. */

/** Vegas dollars: +$208, $0, -$52. */
export function money(v) {
  if (v > 0) return `+$${v}`;
  if (v < 0) return `-$${-v}`;
  return '$0';
}

/** The score the deal's scoring letter shows, with its unit: "+$208" (Vegas) or "15 pts" (Normal). */
export function score(figures, scoring) {
  if (scoring === 'V') return money(figures.vegas);
  return `${figures.points ?? 0} pts`;
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
  return days ? `${days} day${days > 1 ? 's' : ''} ${rest}` : rest;
}

/** A challenge's window in words: "10 minutes", "3 hours", "2 days". */
export function windowText(seconds) {
  const [n, unit] = seconds % 86400 === 0 ? [seconds / 86400, 'day'] : seconds % 3600 === 0
    ? [seconds / 3600, 'hour'] : [Math.round(seconds / 60), 'minute'];
  return `${n} ${unit}${n > 1 ? 's' : ''}`;
}

/** 4212 → "4 212": thousands apart by a narrow no-break space, as a count reads. */
export function count(n) {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, '\u202f');
}

/** "37th of 4 212": a place in a field. */
export function placeOf(rank, total) {
  return `${ordinal(rank)} of ${count(total)}`;
}

export function ordinal(n) {
  const tens = n % 100;
  if (tens >= 11 && tens <= 13) return `${n}th`;
  return `${n}${{ 1: 'st', 2: 'nd', 3: 'rd' }[n % 10] ?? 'th'}`;
}

export function modeText(settings) {
  if (!settings) return '';
  return `Draw ${settings.draw === 3 ? 'three' : 'one'} · ${settings.scoring === 'V' ? 'Vegas' : 'Normal'}`;
}
