// Each rated seat's rating change under the match winner's banner (+12 / -9), read once from the
// finished match's record.

import { api } from "../api.js";
import { seatLabel } from "../game_text.js";
import { readWithKey } from "../identity.js";
import { t } from "../i18n.js";
import { signed } from "../rating_text.js";
import { h } from "./dom.js";
import { nameElement } from "./names.js";

// match id -> the changes, or a promise of them while they are read.
const known = new Map();

function load(room, token) {
  const reading = readWithKey((key) => api.match(room.match_id, { token, key: token ? null : key, room: room.room_id }))
    .then((match) => match.rating_changes ?? [])
    .catch(() => []);
  known.set(room.match_id, reading);
  reading.then((changes) => {
    known.set(room.match_id, changes);
    document.getElementById("rating-changes")?.replaceWith(changesList(room, changes));
  });
}

function changesList(room, changes) {
  if (!changes.length) return h("div", { id: "rating-changes", hidden: true });
  return h(
    "section.rating-changes",
    { id: "rating-changes", "aria-label": t("rating.changes") },
    h("h3", {}, t("rating.changes")),
    h(
      "ul",
      {},
      changes.map((change) => {
        const seat = room.seats.find((s) => s.seat === change.seat);
        const delta = change.after - change.before;
        return h(
          "li",
          { dataset: { seat: change.seat } },
          h("a.who", { href: `/p/${change.player_id}`, "data-link": true }, nameElement(seatLabel(seat, change.seat))),
          h("span.rating-now", {}, String(change.after)),
          h(`span.delta.${delta > 0 ? "up" : delta < 0 ? "down" : "same"}`, { dataset: { delta } }, signed(delta)),
        );
      }),
    ),
  );
}

// The changes of the room's finished match, or null while it goes on or when it is unrated.
export function ratingChanges(room, token) {
  if (room.status !== "finished" || !room.rated || !room.match_id) return null;
  const changes = known.get(room.match_id);
  if (Array.isArray(changes)) return changesList(room, changes);
  if (!changes) load(room, token);
  return h("div.rating-changes.loading", { id: "rating-changes" }, t("rating.reading"));
}
