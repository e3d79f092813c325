// The table's short move log: the last moves of every player in words, newest last, the same
// words as the replay's step line.

import { actionText } from "../action_text.js";
import { t } from "../i18n.js";
import { h } from "./dom.js";

const KEEP = 40;
const SHOWN = 8;

export function createMoveList(game) {
  const entries = [];
  let open = null;

  function text(move, seatName) {
    const action = actionText(game, move.action);
    if (move.seat === null || move.seat === undefined) return action;
    return t("history.action_by", { who: seatName(move.seat), action });
  }

  return {
    // moves: [{seat, action}] from move_log.js; names the seats with `seatName`.
    add(moves) {
      for (const move of moves) entries.push(move);
      entries.splice(0, Math.max(0, entries.length - KEEP));
    },
    text,
    element(seatName, { startOpen = true } = {}) {
      if (!entries.length) return null;
      return h(
        "details.move-log",
        {
          id: "move-log",
          open: open ?? startOpen,
          ontoggle: (event) => {
            open = event.currentTarget.open;
          },
        },
        h("summary", {}, t("log.title")),
        h(
          "ol",
          { role: "log", "aria-label": t("log.title") },
          entries.slice(-SHOWN).map((move) => h("li", {}, text(move, seatName))),
        ),
      );
    },
  };
}
