// The end of a Rummikub round (who went out, every rack, the points) and the running totals.

import { t } from "../i18n.js";
import { rackPoints } from "../rules/rummikub_melds.js";
import { h } from "./dom.js";
import { tileElement } from "./tiles.js";

export function roundResult(game, seatName) {
  const last = game.last_round;
  const rounds = game.rounds ?? [];
  if (!last && rounds.length === 0) return null;
  const seats = game.seats.map((s) => s.seat);
  const board = h(
    "table.scores",
    {},
    h("thead", {}, h("tr", {}, h("th", {}, t("rk.round")), seats.map((seat) => h("th", {}, seatName(seat))))),
    h(
      "tbody",
      {},
      rounds.map((r) => h("tr", {}, h("td", {}, String(r.round)), r.points.map((p) => h("td", {}, p > 0 ? `+${p}` : String(p))))),
      h("tr.total", {}, h("th", {}, t("rk.total")), game.scores.map((n) => h("td", {}, String(n)))),
    ),
  );
  let detail = null;
  if (last) {
    detail = [
      h("p.summary", {}, t(`rk.end.${last.reason}`, { name: seatName(last.winner) })),
      h(
        "ul.racks",
        {},
        last.racks.map((rack, seat) =>
          h(
            "li",
            {},
            h("span.who", {}, seatName(seat)),
            rack.length ? rack.map((tile) => tileElement(tile)) : h("span.badge.ready", {}, t("rk.rack_empty")),
            h("span.points", {}, t("rk.rack_value", { n: last.rack_values?.[seat] ?? rackPoints(rack), points: last.points[seat] })),
          ),
        ),
      ),
    ];
  }
  const result = game.result;
  return h(
    "section.rk-results",
    { id: "round-result" },
    last ? h("h3", {}, t("rk.round_over", { n: last.round })) : h("h3", {}, t("rk.scores")),
    result
      ? h("p.match-winner", { id: "match-winner" }, result.winner === null ? t("rk.match_tied") : t("rk.match_won", { name: seatName(result.winner) }))
      : null,
    detail,
    board,
  );
}
