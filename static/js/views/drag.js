// Pointer-event drag and drop for mouse and touch. Sources carry data-drag, targets data-drop;
// a press that does not move is left to the ordinary click handler (tap to select).

const THRESHOLD_PX = 6;

export function enableDrag(root, onDrop) {
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
  const rect = source.getBoundingClientRect();
  const offsetX = down.clientX - rect.left;
  const offsetY = down.clientY - rect.top;

  const targetAt = (x, y) => {
    if (ghost) ghost.style.visibility = "hidden";
    const under = document.elementFromPoint(x, y);
    if (ghost) ghost.style.visibility = "";
    return under?.closest("[data-drop]") ?? null;
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
    ghost.style.left = `${event.clientX - offsetX}px`;
    ghost.style.top = `${event.clientY - offsetY}px`;
    const target = targetAt(event.clientX, event.clientY);
    if (target !== hovered) {
      hovered?.classList.remove("drop-hover");
      target?.classList.add("drop-hover");
      hovered = target;
    }
  };

  const finish = (event, cancelled) => {
    window.removeEventListener("pointermove", move);
    window.removeEventListener("pointerup", up);
    window.removeEventListener("pointercancel", cancel);
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
