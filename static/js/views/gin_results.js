// The end of a Gin Rummy hand (both hands in melds, the lay-offs, the score breakdown) and the
// match scoreboard (hands, totals, line, game and shutout bonuses).

import { cardName } from "../game_text.js";
import { isolate, listText, t } from "../i18n.js";
import { cardElement } from "./cards.js";
import { avatarElement } from "./avatar.js";
import { h } from "./dom.js";
import { nameElement } from "./names.js";

function playerLayout(player, outcome, layoffsOnto, seatName, seatInfo) {
  const role = player.seat === outcome.knocker ? t("gin.knocker") : t("gin.defender");
  return h(
    "div.layout",
    { dataset: { seat: player.seat } },
    h("div.who", {}, avatarElement(seatInfo(player.seat)), nameElement(seatName(player.seat)), outcome.knocker === null ? null : h("span.badge", {}, role)),
    h(
      "div.hand-groups",
      {},
      player.melds.map((meld, index) =>
        h(
          "div.meld-group",
          {},
          meld.map((card) => cardElement(card, { small: true })),
          (layoffsOnto[index] ?? []).map((card) =>
            cardElement(card, { small: true, extraClass: "laid-off", label: t("gin.laid_off_card", { card: cardName(card) }) }),
          ),
        ),
      ),
      player.deadwood.length
        ? h("div.meld-group.deadwood-group", {}, player.deadwood.map((card) => cardElement(card, { small: true })))
        : null,
    ),
    h("div.deadwood", {}, t("gin.deadwood_n", { n: player.deadwood_points })),
    player.layoffs.length
      ? h("div.muted", {}, t("gin.laid_off", { cards: listText(player.layoffs.map((l) => cardName(l.card))) }))
      : null,
  );
}

// The hand's end in one sentence: "Ann knocked and scores 12."
export function outcomeSummary(outcome, seatName) {
  if (outcome.ending === "draw") return t("gin.result.draw");
  return t(`gin.result.${outcome.ending}`, {
    winner: isolate(seatName(outcome.winner)),
    knocker: seatName(outcome.knocker),
    points: outcome.points,
  });
}

// seatInfo(seat): the room's seat (for its avatar), or null.
export function handOutcome(outcome, seatName, seatInfo = () => null) {
  const defender = outcome.players.find((p) => p.seat !== outcome.knocker);
  const layoffsOnto = {};
  for (const layoff of defender?.layoffs ?? []) {
    (layoffsOnto[layoff.meld] ??= []).push(layoff.card);
  }
  const summary = outcomeSummary(outcome, seatName);
  const breakdown =
    outcome.ending === "draw"
      ? null
      : h(
          "table.breakdown",
          {},
          h("tbody", {},
            h("tr", {}, h("th", {}, t("gin.deadwood_difference")), h("td", {}, String(outcome.deadwood_difference))),
            h("tr", {}, h("th", {}, t(`gin.bonus.${outcome.ending}`)), h("td", {}, String(outcome.bonus))),
            h("tr.total", {}, h("th", {}, t("gin.hand_points", { name: seatName(outcome.winner) })), h("td", {}, String(outcome.points))),
          ),
        );
  return h(
    "section.gin-outcome",
    { id: "hand-outcome", dataset: { ending: outcome.ending } },
    h("h3", {}, t("gin.hand_n_over", { n: outcome.hand }), " — ", h("span.ending", {}, t(`gin.ending.${outcome.ending}`))),
    h("p.summary", {}, summary),
    h("div.layouts", {}, outcome.players.map((p) => playerLayout(p, outcome, outcome.knocker === p.seat ? layoffsOnto : {}, seatName, seatInfo))),
    breakdown,
  );
}

function sideName(side, seatName) {
  return side.map(seatName).join(" + ");
}

export function matchScoreboard(game, seatName) {
  const sides = game.sides ?? [];
  const history = game.history ?? [];
  const head = h("tr", {}, h("th", {}, t("gin.hand")), sides.map((side) => h("th", {}, side.map((seat, i) => [i ? " + " : "", nameElement(seatName(seat))]))), h("th", {}, t("gin.how")));
  const rows = history.map((record) =>
    h(
      "tr",
      {},
      h("td", {}, String(record.hand)),
      sides.map((side) => h("td", {}, side.includes(record.winner) ? String(record.points) : "")),
      h("td", {}, t(`gin.ending.${record.ending}`)),
    ),
  );
  const totals = h("tr.total", {}, h("th", {}, t("gin.total")), (game.side_scores ?? []).map((n) => h("td", {}, String(n))), h("td", {}, t("gin.target_n", { n: game.config.target })));
  const result = game.result;
  let final = null;
  if (result) {
    const line = (key, field) => h("tr", {}, h("th", {}, t(key)), result.sides.map((s) => h("td", {}, String(s[field]))), h("td"));
    final = [
      line("gin.hand_points_total", "hand_points"),
      line("gin.game_bonus", "game_bonus"),
      line("gin.line_bonus", "line_bonus"),
      line("gin.shutout_bonus", "shutout_bonus"),
      h("tr.total.final", {}, h("th", {}, t("gin.final_total")), result.sides.map((s) => h("td", {}, String(s.total))), h("td")),
    ];
  }
  return h(
    "section.scoreboard",
    { id: "scoreboard" },
    h("h3", {}, t("gin.scoreboard")),
    h("table.scores", {}, h("thead", {}, head), h("tbody", {}, rows, totals, final)),
  );
}

// "Ann wins the match 187 to 45!", or null while the match goes on.
export function matchWinnerText(game, seatName) {
  const result = game.result;
  if (!result) return null;
  const sides = game.sides ?? [];
  const totals = result.sides.map((side) => side.total);
  if (result.winner_side === null) return t("gin.match_tied_score", { score: totals.join(" : ") });
  const winner = totals[result.winner_side];
  const others = totals.filter((_, index) => index !== result.winner_side).join(" : ");
  return t("gin.match_won_score", { name: sideName(sides[result.winner_side], seatName), winner, others });
}
