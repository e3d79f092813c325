// The only module that touches the WebSocket: hello, acks by sequence number, pings,
// reconnection with backoff, and resync when a patch does not follow the held version.

const PING_EVERY_MS = 15000;
const PONG_WITHIN_MS = 10000;
const BACKOFF_FIRST_MS = 500;
const BACKOFF_MAX_MS = 10000;
const MAX_ATTEMPTS = 40;
// Close codes after which retrying cannot help (see docs/protocol.md).
const FATAL_CLOSE_CODES = new Set([4400, 4401, 4403, 4404, 4410]);

export class ActionError extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

export class Connection {
  // store: a Store; onStatus(status, detail); onError(code, message) for errors without a seq
  // (and for refused chat lines); onChat(lines, history) for the table's talk; onNotice({text,
  // closed}) for the server operator's notice, or the reason the operator closed the room.
  constructor({ roomId, token, store, onStatus, onError, onChat, onNotice }) {
    this.onChat = onChat;
    this.onNotice = onNotice;
    this.roomId = roomId;
    this.token = token;
    this.store = store;
    this.onStatus = onStatus;
    this.onError = onError;
    this.socket = null;
    this.seq = 0;
    this.pending = new Map();
    this.attempts = 0;
    this.stopped = false;
    this.timers = { retry: null, ping: null, pong: null };
    this.status = "idle";
  }

  url() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    return `${scheme}://${location.host}/ws/rooms/${encodeURIComponent(this.roomId)}`;
  }

  setStatus(status, detail = null) {
    this.status = status;
    this.onStatus?.(status, detail);
  }

  open() {
    this.stopped = false;
    this.connect();
  }

  connect() {
    clearTimeout(this.timers.retry);
    this.setStatus(this.attempts === 0 ? "connecting" : "reconnecting");
    const socket = new WebSocket(this.url());
    this.socket = socket;
    socket.addEventListener("open", () => {
      if (socket !== this.socket) return;
      socket.send(JSON.stringify({ type: "hello", token: this.token ?? null }));
      this.startPing();
    });
    socket.addEventListener("message", (event) => {
      if (socket === this.socket) this.receive(event.data);
    });
    socket.addEventListener("close", (event) => {
      if (socket === this.socket) this.closed(event.code);
    });
  }

  receive(raw) {
    let message;
    try {
      message = JSON.parse(raw);
    } catch {
      return;
    }
    switch (message.type) {
      case "snapshot":
        this.attempts = 0;
        this.store.applySnapshot(message.version, message.state);
        this.setStatus("open");
        break;
      case "patch":
        if (!this.store.applyPatch(message.from, message.version, message.patch)) {
          this.send({ type: "resync" });
        }
        break;
      case "ack":
        // The ack of an accepted action carries the action's patch (protocol 2): the store
        // is at the new version before the action's promise resolves.
        if (!this.store.applyPatch(message.from, message.version, message.patch)) {
          this.send({ type: "resync" });
        }
        this.settle(message.seq, null, message.version);
        break;
      case "error":
        if (message.seq !== null && message.seq !== undefined && this.pending.has(message.seq)) {
          this.settle(message.seq, new ActionError(message.code, message.message));
        } else {
          this.onError?.(message.code, message.message);
        }
        break;
      case "pong":
        clearTimeout(this.timers.pong);
        break;
      case "chat":
        this.onChat?.([message], false);
        break;
      case "chat_history":
        this.onChat?.(message.messages ?? [], true);
        break;
      case "notice":
        this.onNotice?.({ text: String(message.text ?? ""), closed: false });
        break;
      case "room_closed":
        this.onNotice?.({ text: String(message.reason ?? ""), closed: true });
        break;
      default:
        break;
    }
  }

  settle(seq, error, version) {
    const waiter = this.pending.get(seq);
    if (!waiter) return;
    this.pending.delete(seq);
    if (error) waiter.reject(error);
    else waiter.resolve(version);
  }

  send(message) {
    if (this.socket?.readyState !== WebSocket.OPEN) return false;
    this.socket.send(JSON.stringify(message));
    return true;
  }

  // Resolves with the new version once the server has the action durably; rejects with an
  // ActionError carrying the server's code.
  act(action) {
    const seq = ++this.seq;
    const message = { type: "action", seq, action };
    if (this.store.version !== null) message.version = this.store.version;
    return new Promise((resolve, reject) => {
      if (!this.send(message)) {
        reject(new ActionError("not_connected", "not connected"));
        return;
      }
      this.pending.set(seq, { resolve, reject });
    });
  }

  ready() {
    return this.send({ type: "ready" });
  }

  // A line of talk: its answer is the line itself, sent back to every connection (onChat), or
  // an error with its code (onError).
  chat(line) {
    return this.send({ type: "chat", seq: ++this.seq, ...line });
  }

  muteForEveryone(seat, muted) {
    return this.send({ type: "chat_mute", seq: ++this.seq, seat, muted });
  }

  resync() {
    return this.send({ type: "resync" });
  }

  startPing() {
    this.stopPing();
    this.timers.ping = setInterval(() => {
      if (!this.send({ type: "ping" })) return;
      clearTimeout(this.timers.pong);
      this.timers.pong = setTimeout(() => this.socket?.close(), PONG_WITHIN_MS);
    }, PING_EVERY_MS);
  }

  stopPing() {
    clearInterval(this.timers.ping);
    clearTimeout(this.timers.pong);
  }

  closed(code) {
    this.stopPing();
    this.socket = null;
    for (const [seq, waiter] of this.pending) {
      waiter.reject(new ActionError("connection_lost", "connection lost"));
      this.pending.delete(seq);
    }
    if (this.stopped) {
      this.setStatus("closed");
      return;
    }
    if (FATAL_CLOSE_CODES.has(code) || this.attempts >= MAX_ATTEMPTS) {
      this.setStatus("failed", code);
      return;
    }
    const delay = Math.min(BACKOFF_MAX_MS, BACKOFF_FIRST_MS * 2 ** this.attempts);
    this.attempts += 1;
    this.setStatus("reconnecting", code);
    this.timers.retry = setTimeout(() => this.connect(), delay * (0.75 + Math.random() * 0.5));
  }

  // Drops the socket as a network failure would; the connection then reconnects by itself.
  drop() {
    this.socket?.close(4000, "dropped by client");
  }

  retryNow() {
    this.attempts = 0;
    if (!this.socket) this.connect();
  }

  close() {
    this.stopped = true;
    clearTimeout(this.timers.retry);
    this.stopPing();
    const socket = this.socket;
    this.socket = null;
    socket?.close(1000, "bye");
    this.setStatus("closed");
  }
}
