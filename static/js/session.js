// What the browser remembers between visits: the name to prefill (the player's own, else the
// last one typed as a guest) and one seat token per room.

import { me } from "./identity.js";

const NAME_KEY = "meldhall.name";
const tokenKey = (roomId) => `meldhall.token.${roomId}`;

function read(key) {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}

function write(key, value) {
  try {
    if (value === null) localStorage.removeItem(key);
    else localStorage.setItem(key, value);
  } catch {
    // Private browsing may refuse storage; the seat then lasts as long as the page.
  }
}

export const session = {
  name: () => me()?.name ?? read(NAME_KEY) ?? "",
  setName: (name) => write(NAME_KEY, name),
  seat(roomId) {
    const raw = read(tokenKey(roomId));
    if (!raw) return null;
    try {
      return JSON.parse(raw);
    } catch {
      return null;
    }
  },
  setSeat: (roomId, seat, token) => write(tokenKey(roomId), JSON.stringify({ seat, token })),
  forget: (roomId) => write(tokenKey(roomId), null),
};
