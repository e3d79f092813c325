// The layouts a Gin Rummy knocker may lay out: every arrangement of the kept cards with the
// least deadwood (they differ in their sets; runs are then the longest stretches left), the
// best first by the server's own rule for a knock sent without melds: the fewest points the
// defender could lay off, as far as the knocker can see (app/games/gin_rummy/layoffs.py).
// And what a defender's chosen lay-offs need to fit.

import { cardPoints, parseCard, SUITS } from "./gin_melds.js";

const RANKS = 13;

function combinations(items, size) {
  if (size === 0) return [[]];
  if (items.length < size) return [];
  const [first, ...rest] = items;
  return [...combinations(rest, size - 1).map((c) => [first, ...c]), ...combinations(rest, size)];
}

// Each rank's ways into sets: none, all of its cards, or (of four) any three.
function setChoices(cards) {
  const byRank = new Map();
  for (const card of cards) {
    const { rank } = parseCard(card);
    byRank.set(rank, [...(byRank.get(rank) ?? []), card]);
  }
  let choices = [[]];
  for (const group of byRank.values()) {
    if (group.length < 3) continue;
    const options = [[], group, ...(group.length === 4 ? combinations(group, 3) : [])];
    choices = choices.flatMap((chosen) => options.map((option) => (option.length ? [...chosen, option] : chosen)));
  }
  return choices;
}

// The runs of the cards left (each stretch of three or more ranks of a suit) and the rest.
function runsOf(cards) {
  const melds = [];
  const loose = [];
  for (const suit of SUITS) {
    const ranks = new Set(cards.filter((c) => c[0] === suit).map((c) => parseCard(c).rank));
    let stretch = [];
    for (let rank = 1; rank <= RANKS + 1; rank += 1) {
      if (ranks.has(rank)) {
        stretch.push(`${suit}${rank}`);
        continue;
      }
      if (stretch.length >= 3) melds.push(stretch);
      else loose.push(...stretch);
      stretch = [];
    }
  }
  return { melds, loose };
}

function key(melds) {
  return melds.map((meld) => [...meld].sort().join(" ")).sort().join(" | ");
}

// The cards another hand could lay off onto each meld in turn: a three-card set's missing
// card; the cards below a run's lowest card and above its highest.
function openEnds(meld) {
  const parsed = meld.map(parseCard);
  if (parsed.every((c) => c.rank === parsed[0].rank)) {
    if (meld.length !== 3) return [];
    return SUITS.filter((s) => !parsed.some((c) => c.suit === s)).map((s) => [`${s}${parsed[0].rank}`]);
  }
  const suit = parsed[0].suit;
  const low = Math.min(...parsed.map((c) => c.rank));
  const high = Math.max(...parsed.map((c) => c.rank));
  const below = [];
  for (let rank = low - 1; rank >= 1; rank -= 1) below.push(`${suit}${rank}`);
  const above = [];
  for (let rank = high + 1; rank <= RANKS; rank += 1) above.push(`${suit}${rank}`);
  return [below, above];
}

// The cards that must be laid off with `card` onto the knocker's `meld`: the cards before it
// along the run's end it extends (H5 onto H1 H2 H3 needs H4); onto a set, none.
export function layOffNeeds(card, meld) {
  for (const chain of openEnds(meld)) {
    const at = chain.indexOf(card);
    if (at >= 0) return chain.slice(0, at);
  }
  return [];
}

// `layoffs` ({card, meld}) with `card` switched on or off and the choice kept layable: on
// brings the cards it needs, off takes the cards that need it.
export function toggleLayOff(layoffs, melds, off, card, on) {
  const next = new Set(off);
  const needs = (l) => layOffNeeds(l.card, melds[l.meld]);
  if (on) {
    next.delete(card);
    const chosen = layoffs.find((l) => l.card === card);
    for (const needed of chosen ? needs(chosen) : []) next.delete(needed);
  } else {
    next.add(card);
    for (const l of layoffs) if (needs(l).includes(card)) next.add(l.card);
  }
  return next;
}

// How many points the defender could lay off, each card counted by the chance it holds it.
export function exposure(melds, { seen, defenderKnown, defenderHidden }) {
  const unseen = 52 - new Set([...seen, ...defenderKnown]).size;
  const chance = unseen > 0 ? defenderHidden / unseen : 0;
  let total = 0;
  for (const meld of melds) {
    for (const chain of openEnds(meld)) {
      let held = 1;
      for (const card of chain) {
        if (seen.includes(card)) break;
        held *= defenderKnown.includes(card) ? 1 : chance;
        total += held * cardPoints(card);
      }
    }
  }
  return total;
}

// [{melds, deadwood, points}] of the kept cards with the least deadwood, the best first.
export function knockLayouts(kept, visible) {
  const found = new Map();
  let least = Infinity;
  for (const sets of setChoices(kept)) {
    const inSets = new Set(sets.flat());
    const { melds: runs, loose } = runsOf(kept.filter((c) => !inSets.has(c)));
    const points = loose.reduce((sum, c) => sum + cardPoints(c), 0);
    if (points > least) continue;
    if (points < least) {
      least = points;
      found.clear();
    }
    const melds = [...sets, ...runs];
    found.set(key(melds), { melds, deadwood: loose, points });
  }
  return [...found.values()]
    .map((layout) => ({ ...layout, exposure: exposure(layout.melds, visible) }))
    .sort((a, b) => a.exposure - b.exposure || key(a.melds).localeCompare(key(b.melds)));
}
