// One visit to one room: the seat token, the store and the socket, and the room-level calls
// (join, watch, ready, bots, leave, rematch). It never touches the page.

import { api } from "./api.js";
import { Connection } from "./connection.js";
import { readWithKey } from "./identity.js";
import { session } from "./session.js";
import { ChatLog } from "./chat_log.js";
import { Store } from "./store.js";

export class RoomController {
  constructor(roomId, { onStatus, onError, onChat, onNotice }) {
    this.roomId = roomId;
    this.onNotice = onNotice;
    this.store = new Store();
    this.chatLog = new ChatLog(roomId);
    this.onChat = onChat;
    this.connection = null;
    this.onStatus = onStatus;
    this.onError = onError;
    const saved = session.seat(roomId);
    this.token = saved?.token ?? null;
    this.seat = saved?.seat ?? null;
  }

  get state() {
    return this.store.state;
  }

  get version() {
    return this.store.version;
  }

  hasSeat() {
    return this.token !== null;
  }

  // key: the player's key, to sit as the player; null to sit as a guest under `name`.
  async join(name, seat, key = null) {
    const joined = await api.join(this.roomId, name, seat, key);
    session.setName(name);
    session.setSeat(this.roomId, joined.seat, joined.token);
    this.token = joined.token;
    this.seat = joined.seat;
    this.connect();
    return joined;
  }

  watch() {
    this.token = null;
    this.seat = null;
    this.connect();
  }

  connect() {
    this.connection?.close();
    this.store.clear();
    this.connection = new Connection({
      roomId: this.roomId,
      token: this.token,
      store: this.store,
      onStatus: (status, detail) => this.onStatus?.(status, detail),
      onError: (code, message) => this.onError?.({ code, message }),
      onChat: (lines, history) => {
        const fresh = this.chatLog.add(lines, history);
        this.onChat?.(fresh, history);
      },
      onNotice: (notice) => this.onNotice?.(notice),
    });
    this.connection.open();
  }

  // A seat token the server no longer knows (room restarted, seat released) is dropped.
  forgetSeat() {
    session.forget(this.roomId);
    this.token = null;
    this.seat = null;
  }

  act(action) {
    return this.connection.act(action);
  }

  ready() {
    return api.ready(this.roomId, this.token);
  }

  async leave() {
    const token = this.token;
    this.forgetSeat();
    this.connection?.close();
    if (token) await api.leave(this.roomId, token);
  }

  rematch() {
    return api.rematch(this.roomId, this.token);
  }

  addBot(seat, level) {
    return api.addBot(this.roomId, seat, level);
  }

  removeBot(seat) {
    return api.removeBot(this.roomId, seat);
  }

  seatToBot(seat) {
    return api.seatToBot(this.roomId, seat, this.token);
  }

  // The spectator's views of the match so far, from the server's log of it, for a page opened
  // or reloaded mid-match to rebuild its move log; none when the server does not show them
  // (a private match to a guest, a room closed to spectators).
  async matchViews() {
    const matchId = this.state?.room?.match_id;
    if (!matchId) return [];
    try {
      const replay = await readWithKey((key) => api.replay(matchId, key));
      return [replay.initial_view, ...replay.steps.map((step) => step.view)].filter(Boolean);
    } catch {
      return [];
    }
  }

  legal() {
    return api.legal(this.roomId, this.token);
  }

  hint() {
    return api.hint(this.roomId, this.token);
  }

  say(text) {
    return this.connection?.chat({ text }) ?? false;
  }

  react(reaction) {
    return this.connection?.chat({ reaction }) ?? false;
  }

  muteForEveryone(seat, muted) {
    return this.connection?.muteForEveryone(seat, muted) ?? false;
  }

  dropConnection() {
    this.connection?.drop();
  }

  dispose() {
    this.connection?.close();
    this.connection = null;
  }
}
