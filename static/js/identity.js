// The player this browser is: {id, key, name}, kept in localStorage, and the calls that change
// it. A key the server no longer knows (signed out elsewhere, forgotten) is dropped here, so
// the page asks for a name again. It never touches the page.

import { api } from "./api.js";

const KEY = "meldhall.player";
const listeners = new Set();

function load() {
  try {
    const saved = JSON.parse(localStorage.getItem(KEY) ?? "null");
    return saved?.id && saved?.key && typeof saved.name === "string" ? saved : null;
  } catch {
    return null;
  }
}

function store(player) {
  try {
    if (player === null) localStorage.removeItem(KEY);
    else localStorage.setItem(KEY, JSON.stringify(player));
  } catch {
    // Private browsing may refuse storage; the player then lasts as long as the page.
  }
  current = player;
  for (const listener of listeners) listener(player);
}

let current = load();

export function me() {
  return current;
}

export function playerKey() {
  return current?.key ?? null;
}

export function onIdentityChange(listener) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function forgetIdentity() {
  store(null);
}

// Runs `call(key)`; a refused key makes this browser forget the player before the error goes on.
export async function withKey(call) {
  try {
    return await call(current?.key ?? null);
  } catch (error) {
    if (error?.code === "bad_player_key" || error?.code === "missing_player_key") forgetIdentity();
    throw error;
  }
}

// A read that a key only widens (one's private matches): with a refused key, forgotten, it is
// read again as anyone.
export async function readWithKey(call) {
  try {
    return await withKey(call);
  } catch (error) {
    if (error?.code !== "bad_player_key") throw error;
    return call(null);
  }
}

export async function createPlayer(name) {
  const made = await api.createPlayer(name);
  store({ id: made.id, key: made.key, name: made.name });
  return current;
}

export async function renamePlayer(name) {
  const renamed = await withKey((key) => api.renamePlayer(key, name));
  store({ ...current, name: renamed.name });
  return current;
}

// This browser becomes the player of a link code shown on another device.
export async function linkDevice(code) {
  const linked = await api.linkDevice(code);
  store({ id: linked.id, key: linked.key, name: linked.name });
  return current;
}

export async function signOutOthers() {
  const fresh = await withKey((key) => api.signOutOthers(key));
  store({ ...current, key: fresh.key });
  return current;
}

export async function forgetMe() {
  await withKey((key) => api.forgetPlayer(key));
  forgetIdentity();
}

export function newLinkCode() {
  return withKey((key) => api.linkCode(key));
}
