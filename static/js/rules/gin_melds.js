// Gin Rummy melds for the hand display: the arrangement with the least deadwood
// (sets: 3-4 cards of one rank; runs: 3+ consecutive ranks of one suit, ace low only).

export const SUITS = ["S", "H", "D", "C"];

export function parseCard(card) {
  return { card, suit: card[0], rank: Number(card.slice(1)) };
}

export function cardPoints(card) {
  return Math.min(parseCard(card).rank, 10);
}

export function deadwoodPoints(cards) {
  return cards.reduce((sum, card) => sum + cardPoints(card), 0);
}

function candidateMelds(cards) {
  const parsed = cards.map(parseCard);
  const melds = [];
  const byRank = new Map();
  for (const c of parsed) byRank.set(c.rank, [...(byRank.get(c.rank) ?? []), c.card]);
  for (const group of byRank.values()) {
    if (group.length >= 3) melds.push(group);
    if (group.length === 4) for (const left of group) melds.push(group.filter((c) => c !== left));
  }
  for (const suit of SUITS) {
    const ranks = new Set(parsed.filter((c) => c.suit === suit).map((c) => c.rank));
    for (let start = 1; start <= 11; start += 1) {
      for (let end = start + 2; end <= 13 && [...Array(end - start + 1).keys()].every((i) => ranks.has(start + i)); end += 1) {
        melds.push(Array.from({ length: end - start + 1 }, (_, i) => `${suit}${start + i}`));
      }
    }
  }
  return melds;
}

// {melds: [[card...]...], deadwood: [card...], points}
export function bestArrangement(cards) {
  const melds = candidateMelds(cards);
  let best = { melds: [], deadwood: [...cards], points: deadwoodPoints(cards) };
  const search = (left, chosen, dead) => {
    const points = deadwoodPoints(dead);
    if (points >= best.points) return;
    if (left.length === 0) {
      best = { melds: chosen, deadwood: dead, points };
      return;
    }
    const [first, ...rest] = left;
    for (const meld of melds) {
      if (meld.includes(first) && meld.every((c) => left.includes(c))) {
        search(left.filter((c) => !meld.includes(c)), [...chosen, meld], dead);
      }
    }
    search(rest, chosen, [...dead, first]);
  };
  search([...cards], [], []);
  return best;
}

export function sortCards(cards) {
  return [...cards].sort((a, b) => {
    const pa = parseCard(a);
    const pb = parseCard(b);
    return SUITS.indexOf(pa.suit) - SUITS.indexOf(pb.suit) || pa.rank - pb.rank;
  });
}

// The hand in display order: melds first (each sorted), then the deadwood by rank.
export function groupedHand(cards) {
  const best = bestArrangement(cards);
  const melds = best.melds.map(sortCards).sort((a, b) => parseCard(a[0]).rank - parseCard(b[0]).rank);
  const deadwood = [...best.deadwood].sort((a, b) => parseCard(a).rank - parseCard(b).rank || SUITS.indexOf(a[0]) - SUITS.indexOf(b[0]));
  return { melds, deadwood, points: best.points };
}

// The least deadwood left after discarding each card (for a hand of 11 just drawn).
export function deadwoodAfterDiscard(cards) {
  return Object.fromEntries(
    cards.map((card) => [card, bestArrangement(cards.filter((c) => c !== card)).points]),
  );
}
