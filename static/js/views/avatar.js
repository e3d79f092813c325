// A seat's face: a person's initials on a colour drawn from their name (the same name, the same
// colour everywhere), a bot its own mark; an empty seat none.

import { h } from "./dom.js";

const BOT_MARK = "⚙";

// Up to two initials: the first letters of the first two words, or a name's first character
// when it has one word (a Chinese name's surname).
export function initials(name) {
  const words = name.trim().split(/\s+/).filter(Boolean);
  const first = (word) => Array.from(word)[0] ?? "";
  const letters = words.length > 1 ? first(words[0]) + first(words[1]) : first(words[0] ?? "");
  return letters.toUpperCase();
}

// A hue from the name's characters; saturation and lightness fixed so white reads on every one.
export function hueOf(name) {
  let hash = 0;
  for (const char of name) hash = (hash * 31 + char.codePointAt(0)) % 360;
  return hash;
}

export function avatarElement(seat) {
  if (!seat || seat.kind === "empty") return null;
  if (seat.kind === "bot") return h("span.avatar.bot", { "aria-hidden": "true" }, BOT_MARK);
  const name = seat.name ?? "";
  return h("span.avatar", { "aria-hidden": "true", style: { backgroundColor: `hsl(${hueOf(name)} 55% 36%)` } }, initials(name));
}
