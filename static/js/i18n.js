// The language tables and t(): every visible string comes from here.
// The default language follows the browser; a choice is remembered in localStorage.

import en from "./lang/en.js";
import zh from "./lang/zh-CN.js";

export const LANGUAGES = { "zh-CN": zh, en };
const KEY = "meldhall.lang";
const listeners = new Set();

function initialLanguage() {
  let saved = null;
  try {
    saved = localStorage.getItem(KEY);
  } catch {
    saved = null;
  }
  if (saved && LANGUAGES[saved]) return saved;
  const wanted = navigator.languages?.length ? navigator.languages : [navigator.language];
  for (const tag of wanted) {
    if (String(tag).toLowerCase().startsWith("zh")) return "zh-CN";
    if (String(tag).toLowerCase().startsWith("en")) return "en";
  }
  return "en";
}

let current = initialLanguage();
document.documentElement.lang = current;

export function language() {
  return current;
}

export function setLanguage(lang) {
  if (!LANGUAGES[lang] || lang === current) return;
  current = lang;
  document.documentElement.lang = lang;
  try {
    localStorage.setItem(KEY, lang);
  } catch {
    // Not remembered, but still switched for this page.
  }
  for (const listener of listeners) listener(lang);
}

export function onLanguageChange(listener) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function has(key) {
  return Object.prototype.hasOwnProperty.call(LANGUAGES[current], key);
}

// The parameters that carry people's names. Each goes into a sentence between U+2068 (first
// strong isolate) and U+2069 (pop directional isolate), so a name written right to left, or
// ending in digits, cannot reorder the words around it wherever the sentence is shown (the
// page, a toast, the tab's title, a screen reader).
const NAME_PARAMS = new Set(["name", "who", "knocker"]);

export function isolate(name) {
  return `\u2068${name}\u2069`;
}

// t("room.seat_n", {n: 2}) -> "Seat 2". A missing key falls back to English,
// then to the key itself, so a gap is visible rather than blank.
export function t(key, params = {}) {
  const table = LANGUAGES[current];
  let text = table[key] ?? en[key] ?? key;
  for (const [name, value] of Object.entries(params)) {
    const shown = NAME_PARAMS.has(name) ? isolate(value) : String(value);
    text = text.replaceAll(`{${name}}`, shown);
  }
  return text;
}

// Names in a list, as the language separates them ("red 5, joker" / "红色5、百搭牌").
export function listText(names) {
  return names.join(t("list.sep"));
}

// An error from the server: translated by its code where the tables know it, otherwise the
// server's own message (with the code, so it can be reported).
export function errorText(code, message) {
  const key = `error.${code}`;
  if (has(key) || en[key]) return t(key);
  return message ? `${message} (${code})` : code;
}
