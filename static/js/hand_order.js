// A player's own order of their hand or rack: kept across moves (new cards join at the end,
// cards that left drop out). Pure.

// `order` (or null for "not arranged by hand") applied to the cards held now.
export function arranged(order, cards) {
  if (!order) return null;
  const held = new Set(cards);
  const kept = order.filter((card) => held.has(card));
  const known = new Set(kept);
  return [...kept, ...cards.filter((card) => !known.has(card))];
}

// `cards` with `card` moved to sit before index `at` of the others.
export function moveTo(cards, card, at) {
  const others = cards.filter((other) => other !== card);
  const index = Math.max(0, Math.min(at, others.length));
  return [...others.slice(0, index), card, ...others.slice(index)];
}
