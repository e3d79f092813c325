// The table's short move log: the last moves of every player in words, newest last, the same
// words as the replay's step line; it also keeps each other player's last move for the table
// to mark, and says it to a screen reader.

import { actionText } from "../action_text.js";
import { t } from "../i18n.js";
import { movesBetween } from "../move_log.js";
import { h } from "./dom.js";
import { announce } from "./notify.js";

const KEEP = 40;
const SHOWN = 8;

export function createMoveList(game) {
  const entries = [];
  // Each other player's last move (move_log.js), by seat.
  const last = new Map();
  let open = null;

  function text(move, seatName) {
    if (move.note) return move.note();
    const action = actionText(game, move.action);
    if (move.seat === null || move.seat === undefined) return action;
    return t("history.action_by", { who: seatName(move.seat), action });
  }

  return {
    // Follows the game from one view to the next: logs every move, keeps and announces the
    // other players' (not `me`'s); returns those, for the table to animate. A new hand or
    // round clears the marks.
    follow(before, after, { me, seatName }) {
      const moves = movesBetween(before, after);
      entries.push(...moves);
      entries.splice(0, Math.max(0, entries.length - KEEP));
      const others = [];
      for (const move of moves) {
        if (move.seat === null) last.clear();
        else if (move.seat !== me) {
          last.set(move.seat, move);
          others.push(move);
          announce(text(move, seatName));
        }
      }
      return others;
    },
    // The moves between earlier views (a page reloaded mid-match), put before what follow()
    // has logged since, with the notes `noteFor(before, after)` gives (a hand's result, as the
    // table noted it live); each other player's last move among them is marked unless a newer
    // one already is. Nothing is announced: it is not news.
    rebuild(views, { me, noteFor = () => null }) {
      const earlier = [];
      const marks = new Map();
      for (let i = 1; i < views.length; i += 1) {
        for (const move of movesBetween(views[i - 1], views[i])) {
          earlier.push(move);
          if (move.seat === null) marks.clear();
          else if (move.seat !== me) marks.set(move.seat, move);
        }
        const words = noteFor(views[i - 1], views[i]);
        if (words) earlier.push({ note: words });
      }
      entries.unshift(...earlier);
      entries.splice(0, Math.max(0, entries.length - KEEP));
      for (const [seat, move] of marks) if (!last.has(seat)) last.set(seat, move);
    },
    // A line of the log that is no move (a hand's result): `words()` gives it in the page's
    // language when the log is drawn.
    note(words) {
      entries.push({ note: words });
      entries.splice(0, Math.max(0, entries.length - KEEP));
    },
    // A seat's last move, or every seat's as [seat, move] pairs.
    last: (seat) => last.get(seat) ?? null,
    lastMoves: () => [...last.entries()],
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
          "ul",
          { role: "log", "aria-label": t("log.title") },
          entries.slice(-SHOWN).map((move) => h(move.note ? "li.note" : "li", {}, text(move, seatName))),
        ),
      );
    },
  };
}
