/** The server's clock, as an offset from ours.

Every time in the protocol (start_at, deadline, at) is on the server's clock.
`hello` gives a first estimate; each `pong` is a sample whose round trip says
how good it is, and the best of the recent ones wins.
*/

const recent = [];
let offset = 0;

/** A clock sample: the server said `serverNow`; we asked at `sentAt` (or null). */
export function sample(serverNow, sentAt, receivedAt = Date.now()) {
  const rtt = sentAt == null ? Infinity : receivedAt - sentAt;
  const estimate = serverNow - (sentAt == null ? receivedAt : (sentAt + receivedAt) / 2);
  recent.push({ rtt, estimate });
  if (recent.length > 6) recent.shift();
  offset = recent.reduce((best, s) => (s.rtt < best.rtt ? s : best)).estimate;
}

/** Now, in the server's milliseconds. */
export function serverNow() {
  return Date.now() + offset;
}
