// Reading one Rummikub meld exactly as the server does (app/games/rummikub/melds.py):
// a run reads left to right ascending with each joker standing for its place; a group has
// one number and distinct colours; a meld that reads both ways is read the way worth more,
// as a group on a tie. Also: arranging loose tiles into the order that reads as a meld.

export const COLOURS = ["R", "B", "K", "Y"];

export function isJoker(tile) {
  return tile === "J" || /^J[12]$/.test(tile);
}

// {colour, number} of an id ("R5a") or a face ("R5"); null for a joker.
export function decode(tile) {
  const match = /^([RBKY])(1[0-3]|[1-9])[ab]?$/.exec(tile);
  return match ? { colour: match[1], number: Number(match[2]) } : null;
}

const invalid = (reason, detail = {}) => ({ kind: null, error: reason, detail, value: 0 });

function readGroup(size, naturals) {
  if (size > 4) return invalid("group_too_long", { size });
  const number = naturals[0].number;
  const seen = new Set();
  for (const { colour, number: other } of naturals) {
    if (other !== number) return invalid("group_mixed_numbers", { a: number, b: other });
    if (seen.has(colour)) return invalid("group_repeats_colour", { colour });
    seen.add(colour);
  }
  return { kind: "group", error: null, value: number * size };
}

function readRun(size, naturals) {
  if (size > 13) return invalid("run_too_long", { size });
  const first = naturals[0];
  for (let i = 1; i < naturals.length; i += 1) {
    const a = naturals[i - 1];
    const b = naturals[i];
    if (b.colour !== first.colour) return invalid("run_mixed_colours");
    if (b.number - a.number === b.place - a.place) continue;
    if (b.number === a.number) return invalid("run_repeats");
    if (b.number < a.number) return invalid("run_out_of_order");
    if (b.number - a.number > b.place - a.place) return invalid("run_gap");
    const missing = b.number - a.number - 1;
    const between = { a: `${a.colour}${a.number}`, b: `${b.colour}${b.number}`, missing };
    return invalid(missing === 0 ? "run_joker_out_of_place" : "run_too_many_jokers", between);
  }
  const start = first.number - first.place;
  if (start < 1) return invalid("run_below_1");
  if (start + size - 1 > 13) return invalid("run_above_13");
  return { kind: "run", error: null, value: size * start + (size * (size - 1)) / 2 };
}

// {kind: "run"|"group"|null, error: code|null, value}
export function readMeld(tiles) {
  const naturals = [];
  for (const [place, tile] of tiles.entries()) {
    if (isJoker(tile)) continue;
    const decoded = decode(tile);
    if (!decoded) return invalid("unknown_tile");
    naturals.push({ place, ...decoded });
  }
  if (tiles.length < 3) return invalid("too_short", { size: tiles.length });
  if (naturals.length === 0) return invalid("only_jokers");
  const group = readGroup(tiles.length, naturals);
  const run = readRun(tiles.length, naturals);
  if (group.kind && run.kind) return run.value > group.value ? run : group;
  if (group.kind) return group;
  if (run.kind) return run;
  const numbers = new Set(naturals.map((n) => n.number));
  const colours = new Set(naturals.map((n) => n.colour));
  if (numbers.size === 1) return group;
  if (colours.size === 1) return run;
  return invalid("neither");
}

// The order of `tiles` that reads as a valid meld, trying the natural arrangements of a run
// and of a group; null when no order of these tiles is a meld.
export function arrangeMeld(tiles) {
  const jokers = tiles.filter(isJoker);
  const naturals = tiles.filter((t) => !isJoker(t)).sort((a, b) => decode(a).number - decode(b).number);
  const candidates = [];
  if (naturals.length) {
    const run = [];
    let spare = [...jokers];
    let ok = true;
    for (const [i, tile] of naturals.entries()) {
      if (i > 0) {
        const gap = decode(tile).number - decode(naturals[i - 1]).number - 1;
        if (gap < 0 || gap > spare.length) {
          ok = false;
          break;
        }
        run.push(...spare.slice(0, gap));
        spare = spare.slice(gap);
      }
      run.push(tile);
    }
    if (ok) {
      const top = decode(naturals[naturals.length - 1]).number;
      const after = Math.min(spare.length, 13 - top);
      candidates.push([...spare.slice(after), ...run, ...spare.slice(0, after)]);
    }
    const byColour = [...naturals].sort(
      (a, b) => COLOURS.indexOf(decode(a).colour) - COLOURS.indexOf(decode(b).colour),
    );
    candidates.push([...byColour, ...jokers]);
  }
  const valid = candidates.filter((order) => readMeld(order).kind);
  if (!valid.length) return null;
  return valid.sort((a, b) => readMeld(b).value - readMeld(a).value)[0];
}

// The tiles of a run in the making in order, as the server puts them after a step (app/games/
// rummikub/run_order.py): numbers low to high, jokers first in the numbers missing between them
// (the lowest gap first), spare ones in front as far as they were there and 1 allows, then
// after the highest as far as 13 allows, the rest in front. null for a meld that is not a run
// in the making: a group, mixed colours, a number twice, fewer than two numbered tiles.
export function runOrder(tiles) {
  const naturals = [];
  const jokers = [];
  let leading = 0;
  for (const tile of tiles) {
    if (isJoker(tile)) {
      jokers.push(tile);
      if (!naturals.length) leading += 1;
      continue;
    }
    const decoded = decode(tile);
    if (!decoded) return null;
    naturals.push({ tile, ...decoded });
  }
  const colours = new Set(naturals.map((n) => n.colour));
  const numbers = new Set(naturals.map((n) => n.number));
  if (naturals.length < 2 || colours.size > 1 || numbers.size < naturals.length) return null;
  naturals.sort((a, b) => a.number - b.number);
  const gaps = naturals.map((n, i) => (i + 1 < naturals.length ? naturals[i + 1].number - n.number - 1 : 0));
  const spare = Math.max(0, jokers.length - gaps.reduce((sum, gap) => sum + gap, 0));
  const low = naturals[0].number;
  const high = naturals[naturals.length - 1].number;
  const back = Math.min(spare - Math.min(leading, spare, low - 1), 13 - high);
  const front = spare - back;
  const ordered = jokers.slice(0, front);
  const fillers = jokers.slice(front, jokers.length - back);
  naturals.forEach((n, i) => {
    ordered.push(n.tile, ...fillers.splice(0, gaps[i]));
  });
  ordered.push(...jokers.slice(jokers.length - back));
  return ordered;
}

// How a rack sorts: by colour then number, or by number then colour; jokers last.
export function sortRack(tiles, by) {
  const key = (tile) => {
    const d = decode(tile);
    if (!d) return [99, 99, tile];
    const c = COLOURS.indexOf(d.colour);
    return by === "number" ? [d.number, c, tile] : [c, d.number, tile];
  };
  return [...tiles].sort((a, b) => {
    const ka = key(a);
    const kb = key(b);
    return ka[0] - kb[0] || ka[1] - kb[1] || (ka[2] < kb[2] ? -1 : ka[2] > kb[2] ? 1 : 0);
  });
}

export function rackPoints(tiles) {
  return tiles.reduce((sum, tile) => sum + (isJoker(tile) ? 30 : decode(tile).number), 0);
}
