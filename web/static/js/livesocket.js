// A live connection of docs/api.md (a game's, the lobby's): one WebSocket
// that reconnects by itself. Loaded with the first screen that needs one.

/**
 * A live connection to path: reconnects by itself (0.5 s doubling to 10 s,
 * with jitter), at once when the network returns or the page is shown
 * again. hello, unless null, is sent at each opening; onMessage gets each
 * message, onState(connected) each change.
 */
export class Live {
  constructor(path, hello, onMessage, onState) {
    Object.assign(this, { path, hello, onMessage, onState, delay: 500, ws: null, timer: 0, closed: false });
    this.wake = (e) => {
      if (e.type === "online" || (document.visibilityState === "visible" && !this.connected())) this.connect();
    };
    addEventListener("online", this.wake);
    document.addEventListener("visibilitychange", this.wake);
    this.connect();
  }

  connected() {
    return !!this.ws && this.ws.readyState === WebSocket.OPEN;
  }

  connect() {
    if (this.closed) return;
    clearTimeout(this.timer);
    this.drop();
    const ws = new WebSocket(`${location.protocol === "https:" ? "wss:" : "ws:"}//${location.host}${this.path}`);
    this.ws = ws;
    ws.onopen = () => {
      this.delay = 500;
      if (this.hello) ws.send(JSON.stringify(this.hello));
      this.onState(true);
    };
    ws.onmessage = (e) => {
      let m;
      try {
        m = JSON.parse(e.data);
      } catch {
        return;
      }
      if (this.ws === ws) this.onMessage(m);
    };
    ws.onclose = () => {
      if (this.ws !== ws) return;
      this.ws = null;
      this.onState(false);
      if (this.closed) return;
      const wait = this.delay * (0.75 + Math.random() / 2);
      this.delay = Math.min(10000, this.delay * 2);
      this.timer = setTimeout(() => this.connect(), wait);
    };
  }

  drop() {
    const ws = this.ws;
    this.ws = null;
    if (ws) {
      ws.onclose = ws.onmessage = ws.onopen = null;
      ws.close();
    }
  }

  /** Sends a message when connected; false when not. */
  send(m) {
    if (!this.connected()) return false;
    this.ws.send(JSON.stringify(m));
    return true;
  }

  close() {
    this.closed = true;
    clearTimeout(this.timer);
    removeEventListener("online", this.wake);
    document.removeEventListener("visibilitychange", this.wake);
    this.drop();
  }
}
