// Moving things on the table: an element flies in from where it came from (FLIP with the Web
// Animations API). Nothing moves when the player or the system asks for less motion.

import { reducedMotion } from "../preferences.js";

const FLY_MS = 420;

export function motionAllowed() {
  return !reducedMotion() && typeof Element.prototype.animate === "function";
}

// Animates `element` from the rectangle `from` (a DOMRect of where it was) to where it is now.
export function flyFrom(element, from) {
  if (!element || !from || !motionAllowed()) return;
  const to = element.getBoundingClientRect();
  const dx = from.left + from.width / 2 - (to.left + to.width / 2);
  const dy = from.top + from.height / 2 - (to.top + to.height / 2);
  if (Math.abs(dx) < 1 && Math.abs(dy) < 1) return;
  element.animate(
    [
      { transform: `translate(${dx}px, ${dy}px)`, zIndex: 20 },
      { transform: "translate(0, 0)", zIndex: 20 },
    ],
    { duration: FLY_MS, easing: "cubic-bezier(0.2, 0.7, 0.2, 1)" },
  );
}

// Where each element matching `selector` inside `frame` is now, by the value of `key` in its
// dataset, relative to the frame: taken before a redraw, handed to slideMoved after it.
export function positions(frame, selector, key) {
  const items = new Map();
  if (!frame) return { origin: null, items };
  const origin = frame.getBoundingClientRect();
  for (const element of frame.querySelectorAll(selector)) {
    const r = element.getBoundingClientRect();
    items.set(element.dataset[key], { dx: r.left - origin.left, dy: r.top - origin.top, width: r.width, height: r.height });
  }
  return { origin, items };
}

// Slides every element that moved inside `frame` since `before` (from positions()) to its new
// place. Positions count from the frame, so the whole table moving down the page (a line added
// above it) moves nothing.
export function slideMoved(frame, selector, key, before) {
  if (!frame || !before.origin || !motionAllowed()) return;
  const origin = frame.getBoundingClientRect();
  for (const element of frame.querySelectorAll(selector)) {
    const was = before.items.get(element.dataset[key]);
    if (!was) continue;
    flyFrom(element, { left: origin.left + was.dx, top: origin.top + was.dy, width: was.width, height: was.height });
  }
}
