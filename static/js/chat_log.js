// The table's talk as this page holds it: lines by id (a history after a reconnect repeats
// some), the count not yet seen, and the seats this person muted for themselves (kept in this
// browser per room; the server still sends their lines to everyone else). No page, no socket.

export const REACTIONS = ["good_game", "nice", "oops", "your_turn", "thinking", "thanks", "wow", "hello"];
export const MAX_CHARS = 300;
const KEEP = 200;
const MUTES_KEY = "meldhall.chat_mutes";

function loadMutes(roomId) {
  try {
    const saved = JSON.parse(localStorage.getItem(MUTES_KEY) ?? "{}");
    return new Set(Array.isArray(saved?.[roomId]) ? saved[roomId].filter(Number.isInteger) : []);
  } catch {
    return new Set();
  }
}

export class ChatLog {
  constructor(roomId) {
    this.roomId = roomId;
    this.lines = [];
    this.ids = new Set();
    this.unread = 0;
    this.mutes = loadMutes(roomId);
    // Grows with every change of what is shown, so a view redraws the lines only then.
    this.revision = 0;
  }

  // Adds lines not held yet; returns them. A history's lines count as read.
  add(lines, history = false) {
    const fresh = [];
    for (const line of lines) {
      if (!line || this.ids.has(line.id)) continue;
      this.ids.add(line.id);
      fresh.push(line);
    }
    if (fresh.length) this.revision += 1;
    this.lines.push(...fresh);
    this.lines.sort((a, b) => a.id - b.id);
    if (this.lines.length > KEEP) {
      for (const gone of this.lines.splice(0, this.lines.length - KEEP)) this.ids.delete(gone.id);
    }
    if (!history) this.unread += fresh.filter((line) => !this.isMuted(line.from?.seat)).length;
    return fresh.filter((line) => !this.isMuted(line.from?.seat));
  }

  visible() {
    return this.lines.filter((line) => !this.isMuted(line.from?.seat));
  }

  markRead() {
    this.unread = 0;
  }

  isMuted(seat) {
    return this.mutes.has(seat);
  }

  setMuted(seat, muted) {
    if (muted) this.mutes.add(seat);
    else this.mutes.delete(seat);
    this.revision += 1;
    try {
      const saved = JSON.parse(localStorage.getItem(MUTES_KEY) ?? "{}") ?? {};
      saved[this.roomId] = [...this.mutes];
      localStorage.setItem(MUTES_KEY, JSON.stringify(saved));
    } catch {
      // Not remembered, but in force for this page.
    }
  }
}
