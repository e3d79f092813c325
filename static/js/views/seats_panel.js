// A room's players, one line each: name, bot or you, ready, whose turn, offline with the time
// left, and what the game's table adds (a Rummikub rack's size and score); then the room's
// buttons (ready, leave). Bots are added and removed here before the match.

import { seatLabel } from "../game_text.js";
import { t } from "../i18n.js";
import { avatarElement } from "./avatar.js";
import { h } from "./dom.js";
import { aloneWithBots } from "./hand_end.js";
import { absence, offlineBadge } from "./presence.js";

const BOT_LEVELS = ["easy", "normal", "hard"];

export function seatName(seat) {
  return seat.kind === "empty" ? t("room.empty_seat") : seatLabel(seat, seat.seat);
}

// ctx: {room, you (seat or null), turn (seats to act), table (the game's table view or null),
// controller, run(promise), onLeave(), offerReady (ask for "ready" even when alone with bots)}
function seatLine(ctx, seat) {
  const { room, you, turn, table, controller, run } = ctx;
  const mine = seat.seat === you;
  const controls = [];
  if (seat.kind === "empty" && room.status === "waiting") {
    const level = h(
      "select.bot-level",
      { "aria-label": t("room.bot_level") },
      BOT_LEVELS.map((l) => h("option", { value: l, selected: l === "normal" }, t(`bot.${l}`))),
    );
    controls.push(
      level,
      h("button.small", { type: "button", class: "add-bot", onclick: () => run(controller.addBot(seat.seat, level.value)) }, t("room.add_bot")),
    );
  }
  if (seat.kind === "bot" && room.status === "waiting") {
    controls.push(h("button.small.quiet", { type: "button", onclick: () => run(controller.removeBot(seat.seat)) }, t("room.remove_bot")));
  }
  // A bot may take an absent player's seat only once the grace is over (the server refuses
  // sooner), so the button waits for it.
  const away = room.status !== "waiting" ? absence(room, seat.seat) : null;
  if (away?.over && !mine && you !== null) {
    controls.push(
      h("button.small", { type: "button", class: "seat-to-bot", onclick: () => run(controller.seatToBot(seat.seat)) }, t("room.seat_to_bot")),
    );
  }
  const playing = turn.includes(seat.seat);
  return h(
    "li.seat",
    { dataset: { seat: seat.seat, kind: seat.kind }, class: [mine ? "mine" : "", playing ? "turn" : ""].join(" ") },
    h("span.conn-dot", {
      dataset: { on: seat.kind === "empty" ? "none" : String(seat.connected) },
      title: t(seat.connected ? "room.online" : "room.offline"),
    }),
    avatarElement(seat),
    h(
      "span.seat-name",
      {},
      // A player's name leads to their profile; a guest's or a bot's is only a name.
      seat.player_id && seat.kind === "human" ? h("a", { href: `/p/${seat.player_id}`, "data-link": true }, seatName(seat)) : seatName(seat),
    ),
    mine ? h("span.badge", {}, t("room.you")) : null,
    seat.kind === "bot" ? h("span.badge.bot", {}, t("room.bot")) : null,
    room.status === "waiting" && seat.kind !== "empty" && seat.ready ? h("span.badge.ready", {}, t("room.ready_mark")) : null,
    playing ? h("span.badge.turn", {}, t("room.their_turn")) : null,
    room.status !== "waiting" ? offlineBadge(room, seat.seat) : null,
    table?.seatExtras?.(seat.seat) ?? null,
    controls,
  );
}

export function seatsPanel(ctx) {
  const { room, you, controller, run, onLeave } = ctx;
  const me = room.seats.find((s) => s.seat === you);
  const buttons = [];
  if (me && room.status === "waiting" && !me.ready && (ctx.offerReady || !aloneWithBots(room, you))) {
    buttons.push(h("button.primary", { type: "button", id: "ready-button", onclick: () => run(controller.ready()) }, t("room.ready")));
  }
  if (me && (room.status === "waiting" || room.status === "finished")) {
    buttons.push(h("button.quiet", { type: "button", id: "leave-button", onclick: onLeave }, t("room.leave")));
  }
  let note = null;
  if (room.status === "waiting") {
    const missing = room.seats.some((s) => s.kind === "empty");
    const key = missing ? "room.waiting_players" : aloneWithBots(room, you) ? "room.starting" : "room.waiting_ready";
    note = h("p.muted", {}, t(key));
  }
  return [
    h("ul.seat-row", {}, room.seats.map((seat) => seatLine(ctx, seat))),
    note || buttons.length ? h("div.room-buttons", {}, note, buttons) : null,
  ];
}
