/** The address bar: what an address asks for, and changing it.

/            the lobby
/how-to-play  the lobby, with how to play open over it (what Rules opens)
/rules       the lobby, with the rule book open over it
/r/ROOMID    the room: our seat if we kept one (resume), else the join card
/r/ROOMID?watch[&follow=NICK]  watch the room as a spectator (a big room's: following NICK)
/t/TOURID    a tournament: the player's page (register, play each round) or the spectator's
/t/TOURID?admin  the organizer's page (with the organizer's key kept in this browser)
/t/TOURID?admin#claim=CODE  the organizer's key moved to this browser with a one-time code
/p/PLAYERID  a player's page: anyone's public profile; the own one with its history
/p/PLAYERID#claim=CODE  this browser becomes that player, with a one-time code from their device
/ratings     the top list of ratings of draw one; /ratings/d3 of draw three

`go` pushes an address as a link would and tells the page as the browser's
Back does (a `popstate`), so one listener (router.js) follows them all.
*/

/** What the address asks for: {name: home|room|watch|tournament|player|ratings, room, …}. */
export function parseRoute(loc = location) {
  if (loc.pathname === '/rules') return { name: 'home', room: '', rules: 'book' };
  if (loc.pathname === '/how-to-play') return { name: 'home', room: '', rules: 'howto' };
  const params = new URLSearchParams(loc.search);
  const t = loc.pathname.match(/^\/t\/([A-Za-z0-9]{8})\/?$/);
  if (t) return { name: 'tournament', room: '', tid: t[1].toUpperCase(), admin: params.has('admin') };
  const top = loc.pathname.match(/^\/ratings(?:\/(d1|d3))?\/?$/i);
  if (top) return { name: 'ratings', room: '', family: (top[1] || 'd1').toLowerCase() };
  const p = loc.pathname.match(/^\/p\/([A-Za-z0-9]{10})\/?$/);
  if (p) return { name: 'player', room: '', pid: p[1].toUpperCase() };
  const m = loc.pathname.match(/^\/r\/([A-Za-z0-9]{8})\/?$/);
  if (!m) return { name: 'home', room: '' };
  return { name: params.has('watch') ? 'watch' : 'room', room: m[1].toUpperCase(), follow: params.get('follow') || '' };
}

/** Go to `path` (nothing if the page is there already). */
export function go(path) {
  if (location.pathname + location.search === path) return;
  history.pushState(null, '', path);
  window.dispatchEvent(new PopStateEvent('popstate'));
}

/** Whether the address is already this room's spectator address. */
export function watchAddress(room) {
  return location.pathname === `/r/${room}` && new URLSearchParams(location.search).has('watch');
}

/** The followed player's nickname in a spectator's address
(`/r/ID?watch&follow=bob`): a reload follows them again, and the address can
be shared. Replaced, not pushed: Back leaves the room, not the player. */
export function keepFollow(room, nickname) {
  if (!room || !watchAddress(room)) return;
  const path = `/r/${room}?watch${nickname ? `&follow=${encodeURIComponent(nickname)}` : ''}`;
  if (location.pathname + location.search !== path) history.replaceState(null, '', path);
}
