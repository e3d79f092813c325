// One logged action in words, for the replay's step line: "Ann: discards 7 of hearts".
// An action the tables do not know (a newer server) falls back to its raw form.

import { cardName } from "./game_text.js";
import { has, listText, t } from "./i18n.js";
import { tileName } from "./views/tiles.js";

function meldNumber(index) {
  return index === "new" ? t("act.new_meld") : t("act.meld_n", { n: Number(index) + 1 });
}

const TEXTS = {
  gin_rummy: {
    draw: (a) => t(a.source === "discard" ? "act.gin.draw_discard" : "act.gin.draw_stock"),
    discard: (a) => t("act.gin.discard", { card: cardName(a.card) }),
    // A knock's discard is face down: the table's move log does not know the card.
    knock: (a) => (a.card ? t("act.gin.knock", { card: cardName(a.card) }) : t("act.gin.knocks")),
    gin: (a) => (a.card ? t("act.gin.gin", { card: cardName(a.card) }) : t("act.gin.goes_gin")),
    // Without `layoffs` the server laid off the defender's best (a replay's logged action).
    lay_off: (a) => {
      if (!Array.isArray(a.layoffs)) return t("act.gin.lays_off");
      if (!a.layoffs.length) return t("act.gin.lay_off_none");
      return t("act.gin.lay_off", { cards: listText(a.layoffs.map((l) => cardName(l.card))) });
    },
  },
  rummikub: {
    play: (a) => {
      const n = (a.table ?? []).length;
      return t(n === 1 ? "act.rk.play_one" : "act.rk.play", { n });
    },
    move: (a) => t("act.rk.move", { tile: tileName(a.tile), meld: meldNumber(a.to) }),
    split: (a) => t("act.rk.split", { meld: meldNumber(a.meld), at: Number(a.at) }),
    merge: (a) => t("act.rk.merge", { meld: meldNumber(a.meld), into: meldNumber(a.into) }),
    return: (a) => t("act.rk.return", { tile: tileName(a.tile) }),
    laid: (a) =>
      t(a.tiles.length === 1 ? "act.rk.laid_one" : "act.rk.laid", { n: a.tiles.length, tiles: listText(a.tiles.map(tileName)) }),
    draw: (a) => (a.n > 1 ? t("act.rk.draw_n", { n: a.n }) : t("act.draw")),
    declare: (a) =>
      a.as ? t("act.rk.declare", { tile: tileName(a.as) }) : t("act.rk.undeclare"),
  },
};

function raw(action) {
  const detail = Object.entries(action)
    .filter(([key]) => key !== "type")
    .map(([key, value]) => `${key}=${typeof value === "object" ? JSON.stringify(value) : value}`)
    .join(" ");
  return `${action.type ?? "?"}${detail ? ` ${detail}` : ""}`;
}

export function actionText(game, action) {
  const type = action?.type;
  const special = TEXTS[game]?.[type];
  try {
    if (special) return special(action);
  } catch {
    return raw(action);
  }
  const plain = `act.${type}`;
  return has(plain) ? t(plain) : raw(action ?? {});
}
