// An absent player, as the table shows them: "offline" with the time left before the others
// may hand the seat to a bot (the room's reconnect grace), then the offer to do so.

import { t } from "../i18n.js";
import { h } from "./dom.js";
import { countdown } from "./hand_end.js";

// {until, over} for a person with no connection; null for anyone present (bots always are).
export function absence(room, seat) {
  const info = room.seats.find((s) => s.seat === seat);
  if (!info || info.kind !== "human" || info.connected || info.away_since === null || info.away_since === undefined) {
    return null;
  }
  const until = info.away_since + (room.reconnect_grace_s ?? 0) * 1000;
  return { until, over: Date.now() >= until };
}

// The small badge on a seat: "offline · 42 s", then just "offline".
export function offlineBadge(room, seat) {
  const away = absence(room, seat);
  if (!away) return null;
  return h(
    "span.badge.offline",
    { dataset: { seatOffline: seat } },
    away.over ? t("presence.offline") : countdown(away.until, "presence.offline_for", "span"),
  );
}

// The turn line while the player to act is away, or null when they are here; without the
// seconds, which only the line on the page counts down (a screen reader hears it once).
export function awayLine(room, seat, name) {
  const away = absence(room, seat);
  if (!away) return null;
  return t(away.over ? "presence.away_over" : "presence.away", { name });
}

export function awayLineElement(room, seat, name, tag = "p.away") {
  const away = absence(room, seat);
  if (!away) return null;
  if (away.over) return h(tag, { id: "turn-line" }, t("presence.away_over", { name }));
  const seconds = Math.max(0, Math.ceil((away.until - Date.now()) / 1000));
  return h(
    tag,
    { id: "turn-line", dataset: { countdown: away.until, countdownKey: "presence.away_wait", countdownName: name } },
    t("presence.away_wait", { name, seconds }),
  );
}
