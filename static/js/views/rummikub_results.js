// The end of a Rummikub round (who went out, every rack, the points), the running totals, and
// the match winner's line.

import { t } from "../i18n.js";
import { rackPoints } from "../rules/rummikub_melds.js";
import { avatarElement } from "./avatar.js";
import { h } from "./dom.js";
import { nameElement } from "./names.js";
import { tileElement } from "./tiles.js";

// The rounds so far and the totals; null before the first round ends.
export function scoreBoard(game, seatName) {
  const rounds = game.rounds ?? [];
  if (!game.last_round && rounds.length === 0) return null;
  const seats = game.seats.map((s) => s.seat);
  return h(
    "section.rk-scores",
    { id: "scores" },
    h("h3", {}, t("rk.scores")),
    h(
      "table.scores",
      {},
      h("thead", {}, h("tr", {}, h("th", {}, t("rk.round")), seats.map((seat) => h("th", {}, nameElement(seatName(seat)))))),
      h(
        "tbody",
        {},
        rounds.map((r) => h("tr", {}, h("td", {}, String(r.round)), r.points.map((p) => h("td", {}, p > 0 ? `+${p}` : String(p))))),
        h("tr.total", {}, h("th", {}, t("rk.total")), game.scores.map((n) => h("td", {}, String(n)))),
      ),
    ),
  );
}

// The round's end in one sentence: "Ann emptied their rack and wins the round."
export function roundSummary(last, seatName) {
  return t(`rk.end.${last.reason}`, { name: seatName(last.winner) });
}

// The round just over: who went out and every rack with its points; null while playing.
// seatInfo(seat): the room's seat (for its avatar), or null.
export function roundResult(game, seatName, seatInfo = () => null) {
  const last = game.last_round;
  if (!last) return null;
  return h(
    "section.rk-results",
    { id: "round-result" },
    h("h3", {}, t("rk.round_over", { n: last.round })),
    h("p.summary", {}, roundSummary(last, seatName)),
    h(
      "ul.racks",
      {},
      last.racks.map((rack, seat) =>
        h(
          "li",
          {},
          h("span.who", {}, avatarElement(seatInfo(seat)), nameElement(seatName(seat))),
          rack.length ? rack.map((tile) => tileElement(tile)) : h("span.badge.ready", {}, t("rk.rack_empty")),
          h("span.points", {}, t("rk.rack_value", { n: last.rack_values?.[seat] ?? rackPoints(rack), points: last.points[seat] })),
        ),
      ),
    ),
  );
}

// "Ann wins the match with 143 points!", or null while the match goes on.
export function matchWinnerText(game, seatName) {
  const result = game.result;
  if (!result) return null;
  if (result.winner === null) return t("rk.match_tied");
  return t("rk.match_won_score", { name: seatName(result.winner), points: game.scores[result.winner] });
}
