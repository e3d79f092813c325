// Pointer-event drag and drop for mouse and touch. Sources carry data-drag, targets data-drop;
// a press that does not move is left to the ordinary click handler (tap to select). Holding a
// dragged piece near the top or bottom of the window scrolls the page, so a meld off screen
// (on a phone, most of them) can still be reached.

const THRESHOLD_PX = 6;
const EDGE_PX = 56;
const SCROLL_MAX_PX = 14;

// Where among `elements` (laid out in rows, in reading order) a drop at `point` falls: the
// number of elements before it.
export function insertionIndex(elements, point) {
  let index = 0;
  for (const element of elements) {
    const r = element.getBoundingClientRect();
    const rowAbove = r.bottom < point.y - r.height / 2;
    const sameRow = r.top <= point.y + r.height / 2 && r.bottom >= point.y - r.height / 2;
    if (rowAbove || (sameRow && r.left + r.width / 2 < point.x)) index += 1;
  }
  return index;
}

export function enableDrag(root, onDrop) {
  // A finger dragging a piece must not also start the browser's own gestures (a scroll or a
  // fling, after which the browser ignores the next quick tap).
  root.addEventListener(
    "touchmove",
    (event) => {
      if (event.target.closest?.("[data-drag]")) event.preventDefault();
    },
    { passive: false },
  );
  root.addEventListener("pointerdown", (event) => {
    if (event.button !== 0) return;
    const source = event.target.closest("[data-drag]");
    if (!source || !root.contains(source)) return;
    startGesture(source, event, onDrop);
  });
}

function startGesture(source, down, onDrop) {
  let ghost = null;
  let hovered = null;
  let last = { x: down.clientX, y: down.clientY };
  let scrolling = null;
  const rect = source.getBoundingClientRect();
  const offsetX = down.clientX - rect.left;
  const offsetY = down.clientY - rect.top;

  const targetAt = (x, y) => {
    if (ghost) ghost.style.visibility = "hidden";
    const under = document.elementFromPoint(x, y);
    if (ghost) ghost.style.visibility = "";
    return under?.closest("[data-drop]") ?? null;
  };

  const hover = () => {
    const target = targetAt(last.x, last.y);
    if (target !== hovered) {
      hovered?.classList.remove("drop-hover");
      target?.classList.add("drop-hover");
      hovered = target;
    }
  };

  // Scrolls while the pointer rests near an edge: faster the closer it is.
  const scrollStep = () => {
    scrolling = null;
    if (!ghost) return;
    const height = window.innerHeight;
    let speed = 0;
    // Only towards where the pointer went: a drag that starts in a rack docked at the bottom
    // of a phone's screen must not scroll until it heads down.
    if (last.y < EDGE_PX && last.y < down.clientY) speed = -SCROLL_MAX_PX * (1 - last.y / EDGE_PX);
    else if (last.y > height - EDGE_PX && last.y > down.clientY) {
      speed = SCROLL_MAX_PX * (1 - (height - last.y) / EDGE_PX);
    }
    if (!speed) return;
    window.scrollBy(0, speed);
    hover();
    scrolling = requestAnimationFrame(scrollStep);
  };

  const move = (event) => {
    if (!ghost) {
      if (Math.hypot(event.clientX - down.clientX, event.clientY - down.clientY) < THRESHOLD_PX) {
        return;
      }
      ghost = source.cloneNode(true);
      ghost.classList.add("drag-ghost");
      ghost.removeAttribute("id");
      ghost.style.width = `${rect.width}px`;
      ghost.style.height = `${rect.height}px`;
      document.body.append(ghost);
      source.classList.add("dragging");
    }
    event.preventDefault();
    last = { x: event.clientX, y: event.clientY };
    ghost.style.left = `${event.clientX - offsetX}px`;
    ghost.style.top = `${event.clientY - offsetY}px`;
    hover();
    if (scrolling === null) scrolling = requestAnimationFrame(scrollStep);
  };

  const finish = (event, cancelled) => {
    window.removeEventListener("pointermove", move);
    window.removeEventListener("pointerup", up);
    window.removeEventListener("pointercancel", cancel);
    if (scrolling !== null) cancelAnimationFrame(scrolling);
    scrolling = null;
    hovered?.classList.remove("drop-hover");
    if (!ghost) return;
    const target = cancelled ? null : targetAt(event.clientX, event.clientY);
    ghost.remove();
    source.classList.remove("dragging");
    // The click that follows a drag must not also count as a tap.
    const swallow = (click) => {
      click.stopPropagation();
      click.preventDefault();
    };
    window.addEventListener("click", swallow, { capture: true, once: true });
    setTimeout(() => window.removeEventListener("click", swallow, { capture: true }), 0);
    if (target) onDrop(source, target, { x: event.clientX, y: event.clientY });
  };
  const up = (event) => finish(event, false);
  const cancel = (event) => finish(event, true);

  window.addEventListener("pointermove", move);
  window.addEventListener("pointerup", up);
  window.addEventListener("pointercancel", cancel);
}
