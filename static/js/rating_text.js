// Ratings in words: a mode's name, a finishing place, a signed change.

import { gameName } from "./game_text.js";
import { t } from "./i18n.js";

// "gin_rummy:4" -> "Gin Rummy · 4 players (pairs)"
export function modeName(mode) {
  const [game, players] = String(mode).split(":");
  const key = game === "gin_rummy" && players === "4" ? "rating.mode_pairs" : "rating.mode";
  return t(key, { game: gameName(game), n: players });
}

// place: 0 for the winner.
export function placeText(place) {
  if (place === null || place === undefined) return "–";
  return t("rating.place", { n: place + 1 });
}

// +12, -9, ±0
export function signed(change) {
  if (change > 0) return `+${change}`;
  if (change < 0) return `-${Math.abs(change)}`;
  return "±0";
}
