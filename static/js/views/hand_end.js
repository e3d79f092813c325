// What both tables show when a hand (or round) or the match ends: the countdown to the next
// hand with the button to start it sooner, the match winner's banner with the rating changes
// and the rematch button, and bringing the result into view once.

import { t } from "../i18n.js";
import { reducedMotion } from "../preferences.js";
import { h } from "./dom.js";
import { ratingChanges } from "./rating_changes.js";
import { showError } from "./toasts.js";

async function run(promise) {
  try {
    await promise;
  } catch (error) {
    showError(error);
  }
}

export function secondsUntil(epochMs) {
  return Math.max(0, Math.ceil((epochMs - Date.now()) / 1000));
}

// An element whose text counts down to `epochMs`; the room's clock rewrites it every second.
export function countdown(epochMs, key, tag = "span.countdown") {
  return h(tag, { dataset: { countdown: epochMs, countdownKey: key } }, t(key, { seconds: secondsUntil(epochMs) }));
}

// Whether every other seat is a bot: then nobody else has to be waited for.
export function aloneWithBots(room, seat) {
  return seat !== null && room.seats.every((s) => s.seat === seat || s.kind === "bot");
}

// Between hands: "Next hand in 12 s" and the button to be ready now.
export function nextHandBar(state, controller) {
  const room = state.room;
  if (room.status !== "between_hands") return null;
  const seat = state.you?.seat ?? null;
  const me = room.seats.find((s) => s.seat === seat);
  // Gin Rummy deals hands, Rummikub plays rounds.
  const round = room.game === "rummikub";
  const parts = [];
  if (room.next_hand_at) parts.push(countdown(room.next_hand_at, round ? "result.next_round_in" : "result.next_in"));
  if (controller && me?.kind === "human" && !me.ready) {
    const alone = aloneWithBots(room, seat);
    const label = round ? (alone ? "result.deal_round_now" : "result.ready_next_round") : alone ? "result.deal_now" : "result.ready_next";
    parts.push(h("button.primary", { type: "button", id: "next-hand-button", onclick: () => run(controller.ready()) }, t(label)));
  } else if (controller && me?.ready) {
    parts.push(h("span.badge.ready", {}, t("result.waiting_others")));
  }
  return h("div.next-hand", { id: "next-hand" }, parts);
}

// The match is over: who won, in large, each rated seat's rating change, and a rematch for a
// seated player.
export function matchBanner(state, controller, text, detail = null) {
  const seated = (state.you?.seat ?? null) !== null;
  return h(
    "section.match-banner",
    { id: "match-banner", role: "status" },
    h("p.match-winner", { id: "match-winner" }, h("span.trophy", { "aria-hidden": "true" }, "★"), " ", text),
    detail,
    ratingChanges(state.room, controller?.token ?? null),
    controller && seated && state.room.status === "finished"
      ? h("button.primary", { type: "button", id: "rematch-button", onclick: () => run(controller.rematch()) }, t("room.rematch"))
      : null,
  );
}

// Scrolls `element` into view the first time `key` is seen (a hand's end), not on every redraw.
export function createRevealer() {
  let seen = null;
  return (element, key) => {
    if (!element || key === seen) return;
    seen = key;
    requestAnimationFrame(() =>
      element.scrollIntoView({ block: "start", behavior: reducedMotion() ? "auto" : "smooth" }),
    );
  };
}

// Brings the page back to its top (the room's header and the players' names) when a new hand
// or round is dealt after another, since the last one's result was scrolled into view.
export function createDealReturn() {
  let seen = null;
  return (key) => {
    if (seen !== null && key !== seen) {
      requestAnimationFrame(() => window.scrollTo({ top: 0, behavior: reducedMotion() ? "auto" : "smooth" }));
    }
    seen = key;
  };
}
