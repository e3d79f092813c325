// The player's table preferences, remembered in this browser: a sound on one's turn, less
// motion, and the colour-blind aid. Views read them and redraw when they change.

const KEY = "meldhall.prefs";
const DEFAULTS = {
  sound: false,
  // null follows the system's "reduce motion" setting until the player chooses.
  reduceMotion: null,
  colourBlind: false,
};
const listeners = new Set();

function load() {
  try {
    const saved = JSON.parse(localStorage.getItem(KEY) ?? "{}");
    const known = Object.entries(saved ?? {}).filter(([name]) => name in DEFAULTS);
    return { ...DEFAULTS, ...Object.fromEntries(known) };
  } catch {
    return { ...DEFAULTS };
  }
}

let current = load();

export function preference(name) {
  return current[name];
}

export function setPreference(name, value) {
  if (!(name in DEFAULTS) || current[name] === value) return;
  current = { ...current, [name]: value };
  try {
    localStorage.setItem(KEY, JSON.stringify(current));
  } catch {
    // Not remembered, but in force for this page.
  }
  for (const listener of listeners) listener(name, value);
}

export function onPreferenceChange(listener) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function systemReducesMotion() {
  return Boolean(globalThis.matchMedia?.("(prefers-reduced-motion: reduce)").matches);
}

// Whether to move things on the table: the player's choice, else the system's.
export function reducedMotion() {
  return current.reduceMotion ?? systemReducesMotion();
}
