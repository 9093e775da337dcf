/** The server's clock, as an offset from ours: one per page, made by
`createClock()`, fed by the socket and read by the screens.

Every time in the protocol (start_at, deadline, at) is on the server's clock.
`hello` gives a first estimate; each `pong` is a sample whose round trip says
how good it is, and the best of the recent ones wins.
*/

const KEPT = 6; // samples kept

export function createClock() {
  const recent = [];
  let offset = 0;

  return {
    /** A clock sample: the server said `serverNow`; we asked at `sentAt` (or null). */
    sample(serverNow, sentAt, receivedAt = Date.now()) {
      const rtt = sentAt == null ? Infinity : receivedAt - sentAt;
      const estimate = serverNow - (sentAt == null ? receivedAt : (sentAt + receivedAt) / 2);
      recent.push({ rtt, estimate });
      if (recent.length > KEPT) recent.shift();
      offset = recent.reduce((best, s) => (s.rtt < best.rtt ? s : best)).estimate;
    },

    /** Now, in the server's milliseconds. */
    now() {
      return Date.now() + offset;
    },

    /** A server time as the time of day on our clock: "20:30:05" (to the
    nearest second: a time typed as 20:30:05 reads so again, whatever the
    offset's milliseconds did meanwhile). */
    timeOfDay(ms) {
      const ours = Math.round((ms - offset) / 1000) * 1000;
      return new Date(ours).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit' });
    },

    /** A server time as a day and time on our clock: "Sat 20:30". */
    dayAndTime(ms) {
      return new Date(ms - offset).toLocaleString([], { weekday: 'short', hour: '2-digit', minute: '2-digit' });
    },

    /** Today's (or tomorrow's) `hh:mm[:ss]` on our clock, as server time
    (whole ms, as the protocol has them: the offset may end in half a
    millisecond); null if not a time. */
    fromTimeOfDay(text, nowMs = Date.now()) {
      const m = /^(\d{1,2}):(\d{2})(?::(\d{2}))?$/.exec(text.trim());
      if (!m) return null;
      const at = new Date(nowMs);
      at.setHours(Number(m[1]), Number(m[2]), Number(m[3] || 0), 0);
      if (at.getTime() < nowMs - 60000) at.setDate(at.getDate() + 1); // a time just past is taken as now
      return Math.round(at.getTime() + offset);
    },
  };
}
