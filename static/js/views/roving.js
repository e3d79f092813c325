// Arrow-key movement inside a row of buttons (a hand, a rack, the table's melds), so that the
// row is one Tab stop and a player reaches any card in a few keys.

const KEYS = { ArrowLeft: -1, ArrowUp: -1, ArrowRight: 1, ArrowDown: 1 };

// Makes `items` one Tab stop: the item matching `current` (or the first) keeps tabindex 0.
export function rovingFocus(container, items, current = null) {
  if (!items.length) return;
  const start = items.includes(current) ? current : items[0];
  const settle = (chosen) => {
    for (const item of items) item.tabIndex = item === chosen ? 0 : -1;
  };
  settle(start);
  // Focus put back by a redraw (or a click) makes that item the row's Tab stop.
  container.addEventListener("focusin", (event) => {
    if (items.includes(event.target)) settle(event.target);
  });
  container.addEventListener("keydown", (event) => {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    const at = items.indexOf(event.target);
    if (at < 0) return;
    let next = null;
    if (event.key in KEYS) next = items[(at + KEYS[event.key] + items.length) % items.length];
    else if (event.key === "Home") next = items[0];
    else if (event.key === "End") next = items[items.length - 1];
    if (!next) return;
    event.preventDefault();
    settle(next);
    next.focus();
  });
}
