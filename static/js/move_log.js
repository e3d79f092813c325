// What the players just did, read from two consecutive state documents (the server sends every
// change, so consecutive documents differ by one move). Each move is {seat, action, card?,
// tiles?}: `action` is shaped like the game's own actions so that action_text.js words it as the
// replay does; `card` or `tiles` name what the table should mark. Pure: no page, no socket.

const top = (pile) => pile[pile.length - 1];

function cardCount(table, seat) {
  return table.players.find((p) => p.seat === seat)?.card_count ?? 0;
}

// One Gin Rummy table from one move to the next (same hand).
function ginTableMoves(before, after) {
  const seat = before.turn;
  if (seat === null || seat === undefined) return [];
  const pileBefore = before.discard_pile;
  const pileAfter = after.discard_pile;
  if (after.phase === "lay_off" && before.phase !== "lay_off") {
    return [{ seat: after.knock?.seat ?? seat, action: { type: "knock" } }];
  }
  if (after.outcome && before.phase === "lay_off") {
    // The defender's answer to the knock: what it laid off.
    const defender = after.outcome.players.find((p) => p.seat === seat);
    return [{ seat, action: { type: "lay_off", layoffs: defender?.layoffs ?? [] } }];
  }
  if (after.outcome && !before.outcome) {
    const outcome = after.outcome;
    if (outcome.ending === "draw") {
      // The discard that left too few stock cards ends the hand in a draw.
      return pileAfter.length === pileBefore.length + 1
        ? [{ seat, action: { type: "discard", card: top(pileAfter) }, card: top(pileAfter) }]
        : [];
    }
    const type = outcome.ending === "undercut" ? "knock" : outcome.ending;
    return [{ seat: outcome.knocker, action: { type } }];
  }
  const grew = cardCount(after, seat) - cardCount(before, seat);
  if (before.phase === "upcard_offer") {
    if (pileAfter.length === pileBefore.length - 1) {
      const card = top(pileBefore);
      return [{ seat, action: { type: "take_upcard" }, card }];
    }
    const moved = after.turn !== before.turn || after.phase !== before.phase;
    if (moved && pileAfter.length === pileBefore.length && after.stock_count === before.stock_count) {
      return [{ seat, action: { type: "pass" } }];
    }
  }
  if (after.stock_count === before.stock_count - 1 && grew === 1) {
    return [{ seat, action: { type: "draw", source: "stock" } }];
  }
  if (pileAfter.length === pileBefore.length - 1 && grew === 1) {
    const card = top(pileBefore);
    return [{ seat, action: { type: "draw", source: "discard" }, card }];
  }
  if (pileAfter.length === pileBefore.length + 1 && grew === -1) {
    const card = top(pileAfter);
    return [{ seat, action: { type: "discard", card }, card }];
  }
  return [];
}

function ginMoves(before, after) {
  if (after.hand_number !== before.hand_number) {
    return [{ seat: null, action: { type: "next_hand" }, hand: after.hand_number }];
  }
  const moves = [];
  (after.tables ?? []).forEach((table, index) => {
    const old = before.tables?.[index];
    if (old && old.hand === table.hand) moves.push(...ginTableMoves(old, table));
  });
  return moves;
}

function rackSize(game, seat) {
  return game.seats.find((s) => s.seat === seat)?.rack_size ?? 0;
}

// The tiles that were on the table before and sit among other tiles of the old table after
// (the tiles just laid aside): the ones a player moved while rearranging.
function movedTiles(before, after) {
  const old = new Set(before.flatMap((meld) => meld.tiles));
  const company = (table) =>
    new Map(
      table.flatMap((meld) => {
        const kept = meld.tiles.filter((tile) => old.has(tile));
        return kept.map((tile) => [tile, [...kept].sort().join(" ")]);
      }),
    );
  const was = company(before);
  return [...company(after)].filter(([tile, now]) => was.get(tile) !== now).map(([tile]) => tile);
}

// A Rummikub turn is many steps on the table; it is logged once, when it ends: the tiles that
// came onto the table, or the draw, or the pass.
function rummikubMoves(before, after) {
  if (after.round !== before.round) {
    return [{ seat: null, action: { type: "next_round" }, round: after.round }];
  }
  const turn = before.turn;
  if (!turn) return [];
  const next = after.turn;
  if (next && next.number === turn.number && next.seat === turn.seat) return [];
  const seat = turn.seat;
  const onTable = new Set(before.table.flatMap((meld) => meld.tiles));
  const laid = after.table.flatMap((meld) => meld.tiles).filter((tile) => !onTable.has(tile));
  const moved = movedTiles(before.table, after.table);
  if (laid.length) return [{ seat, action: { type: "laid", tiles: laid }, tiles: laid, moved }];
  const drawn = rackSize(after, seat) - rackSize(before, seat);
  if (drawn > 0) return [{ seat, action: drawn === 1 ? { type: "draw" } : { type: "draw", n: drawn } }];
  return [{ seat, action: { type: "pass" } }];
}

const READERS = { gin_rummy: ginMoves, rummikub: rummikubMoves };

// The moves that lead from one game view to the next; none when either is missing or they are
// views of different games.
export function movesBetween(before, after) {
  if (!before || !after || before === after || before.game !== after.game) return [];
  return READERS[after.game]?.(before, after) ?? [];
}
