// A friend taking a seat: a short note and, with the sound setting on, a rising chirp, so a host
// waiting in another tab knows without looking.

import { t } from "../i18n.js";
import { seatLabel } from "../game_text.js";
import { chirp } from "./notify.js";
import { toast } from "./toasts.js";

// Follows one room's seats: a seat that was empty and now holds another person is told once.
export function createJoinNotice() {
  let seats = null;
  return (room, you) => {
    const before = seats;
    seats = new Map(room.seats.map((s) => [s.seat, s.kind]));
    if (!before) return;
    for (const seat of room.seats) {
      if (seat.kind !== "human" || seat.seat === you || before.get(seat.seat) !== "empty") continue;
      toast(t("room.friend_joined", { name: seatLabel(seat, seat.seat) })).classList.add("join-note");
      chirp();
    }
  };
}
