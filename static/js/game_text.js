// Names of games, options and cards in the current language, with the server's own text as
// the fallback for anything the tables do not know.

import { has, t } from "./i18n.js";

export function gameName(game) {
  return has(`game.${game}`) ? t(`game.${game}`) : game;
}

export function optionLabel(game, name) {
  const key = `opt.${game}.${name}`;
  return has(key) ? t(key) : name.replaceAll("_", " ");
}

export function optionDescription(game, option) {
  const key = `opt.${game}.${option.name}.help`;
  return has(key) ? t(key) : (option.description ?? "");
}

export function optionValueText(game, name, value) {
  if (typeof value === "boolean") return t(value ? "common.yes" : "common.no");
  const key = `opt.${game}.${name}.${value}`;
  if (has(key)) return t(key);
  if (value === null || value === undefined) return t("common.none");
  return String(value);
}

const SUITS = { H: "♥", D: "♦", S: "♠", C: "♣" };
const RANKS = { 1: "A", 11: "J", 12: "Q", 13: "K" };

export function cardParts(card) {
  const suit = card[0];
  const rank = Number(card.slice(1));
  return { suit, rank, symbol: SUITS[suit] ?? "?", label: RANKS[rank] ?? String(rank) };
}

export function cardName(card) {
  const { suit, label } = cardParts(card);
  return t("card.name", { rank: label, suit: t(`suit.${suit}`) });
}

// How a seat is named everywhere: the person's name, or "Bot 2 (easy)" for a bot.
export function seatLabel(info, seat) {
  const n = (info?.seat ?? seat) + 1;
  if (!info || info.kind === "empty") return t("room.seat_n", { n });
  if (info.kind === "bot") return t("room.bot_seat", { n, level: t(`bot.${info.level ?? "normal"}`) });
  return info.name || t("room.seat_n", { n });
}
