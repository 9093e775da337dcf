/** The websocket to the server: connect, greet, keep alive, reconnect.

One connection at a time. After each `hello` the owner's `onOpen` decides how
to enter (resume a seat, watch, or nothing yet). A lost connection is opened
again with a growing, jittered delay, except when the server said not to
(4000: the seat was opened elsewhere; 4001: removed by the host; 4002: left).
Pings measure the clock (the page's, clock.js) and notice a dead link (a
phone that slept, a network that changed) that the browser has not noticed
yet.
*/

const PROTOCOL = 'klondike-race.v2'; // acks carry what changed in our view (docs/protocol.md)
const NO_RETRY = new Set([4000, 4001, 4002]);
const PING_EVERY = 10000;
const PONG_WITHIN = 6000;
const RATE = 15; // frames a second we allow ourselves (the server allows 20)
const BURST = 40;

export class Socket {
  constructor({ clock, onOpen, onFrame, onClose, onStatus }) {
    Object.assign(this, { clock, onOpen, onFrame, onClose, onStatus });
    this.ws = null;
    this.ready = false; // open and greeted
    this.attempt = 0;
    this.retryTimer = 0;
    this.pingTimer = 0;
    this.pingSent = null;
    this.stopped = false;
    this.tokens = BURST;
    this.stamp = Date.now();
    this.queue = [];
    this.drainTimer = 0;
    document.addEventListener('visibilitychange', () => {
      if (!document.hidden) this.wake();
    });
    window.addEventListener('online', () => this.wake());
    window.addEventListener('pageshow', (e) => {
      if (e.persisted) this.wake();
    });
  }

  url() {
    return `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws`;
  }

  connect() {
    clearTimeout(this.retryTimer);
    this.stopped = false;
    if (this.ws && this.ws.readyState <= WebSocket.OPEN) return;
    const ws = new WebSocket(this.url(), PROTOCOL);
    this.ws = ws;
    this.ready = false;
    this.onStatus(this.attempt ? 'reconnecting' : 'connecting');
    ws.onmessage = (event) => this.receive(ws, event.data);
    ws.onclose = (event) => this.closed(ws, event.code);
  }

  /** Drop this connection (if any) and open a new one now; `fresh` when
  nothing went wrong (no "reconnecting" banner): a page changing rooms. */
  restart({ fresh = false } = {}) {
    const old = this.ws;
    this.ws = null;
    this.ready = false;
    this.stopHeartbeat();
    if (old) {
      old.onclose = null;
      old.onmessage = null;
      old.close(1000);
    }
    if (!fresh) this.attempt = Math.max(this.attempt, 1);
    this.onClose(1006);
    this.connect();
  }

  /** Back from sleep or offline: make sure the link still works. */
  wake() {
    if (this.stopped) return;
    if (!this.ws || this.ws.readyState > WebSocket.OPEN) {
      this.connect();
      return;
    }
    if (this.ready) this.ping(true);
  }

  receive(ws, data) {
    if (ws !== this.ws) return;
    let msg;
    try {
      msg = JSON.parse(data);
    } catch {
      return;
    }
    if (!msg || typeof msg.t !== 'string') return;
    if (msg.t === 'hello') {
      this.clock.sample(msg.d.now, null);
      this.ready = true;
      this.attempt = 0;
      this.startHeartbeat();
      this.onStatus('open');
      this.onOpen();
      return;
    }
    if (msg.t === 'pong') {
      if (this.pingSent != null) this.clock.sample(msg.d.now, this.pingSent);
      this.pingSent = null;
      return;
    }
    this.onFrame(msg);
  }

  closed(ws, code) {
    if (ws !== this.ws) return;
    this.ws = null;
    this.ready = false;
    this.stopHeartbeat();
    this.queue = [];
    if (this.stopped || NO_RETRY.has(code)) {
      this.stopped = true;
      this.onClose(code);
      return;
    }
    this.onClose(code);
    const delay = Math.min(10000, 400 * 2 ** this.attempt) * (0.75 + Math.random() * 0.5);
    this.attempt += 1;
    this.onStatus('reconnecting');
    this.retryTimer = setTimeout(() => this.connect(), delay);
  }

  /** Open, greeted and not closing. */
  live() {
    return this.ready && this.ws != null && this.ws.readyState === WebSocket.OPEN;
  }

  /** Send a frame if greeted; false when it could not go (the caller resends later). */
  send(t, d) {
    if (!this.live()) return false;
    const text = JSON.stringify(d ? { t, d } : { t });
    this.refill();
    if (this.queue.length || this.tokens < 1) {
      this.queue.push(text);
      this.scheduleDrain();
      return true;
    }
    this.tokens -= 1;
    this.ws.send(text);
    return true;
  }

  refill() {
    const now = Date.now();
    this.tokens = Math.min(BURST, this.tokens + ((now - this.stamp) / 1000) * RATE);
    this.stamp = now;
  }

  scheduleDrain() {
    if (this.drainTimer) return;
    this.drainTimer = setTimeout(() => {
      this.drainTimer = 0;
      this.refill();
      while (this.queue.length && this.tokens >= 1 && this.live()) {
        this.tokens -= 1;
        this.ws.send(this.queue.shift());
      }
      if (this.queue.length) this.scheduleDrain();
    }, 1000 / RATE);
  }

  startHeartbeat() {
    this.stopHeartbeat();
    this.pingSent = null;
    this.pingTimer = setInterval(() => this.ping(false), PING_EVERY);
  }

  stopHeartbeat() {
    clearInterval(this.pingTimer);
    clearTimeout(this.pongTimer);
    this.pingTimer = 0;
    this.pingSent = null;
  }

  /** Pings are free of message credit. No pong in time: the link is dead. */
  ping(urgent) {
    if (!this.live()) return;
    if (this.pingSent != null && Date.now() - this.pingSent > PONG_WITHIN) {
      this.restart();
      return;
    }
    if (this.pingSent == null) {
      this.pingSent = Date.now();
      this.ws.send('{"t":"ping"}');
    }
    if (urgent) {
      clearTimeout(this.pongTimer);
      const sent = this.pingSent;
      this.pongTimer = setTimeout(() => {
        if (this.pingSent === sent) this.restart();
      }, PONG_WITHIN);
    }
  }
}
