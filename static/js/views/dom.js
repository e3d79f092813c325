// A tiny element builder shared by the view modules: h("button.primary", {onclick}, "text").

export function h(tag, attributes = {}, ...children) {
  const [name, ...classes] = tag.split(".");
  const element = document.createElement(name || "div");
  if (classes.length) element.className = classes.join(" ");
  for (const [key, value] of Object.entries(attributes ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") {
      element.addEventListener(key.slice(2), value);
    } else if (key === "dataset") {
      Object.assign(element.dataset, value);
    } else if (key === "class") {
      element.className += ` ${value}`;
    } else if (key === "style" && typeof value === "object") {
      Object.assign(element.style, value);
    } else if (value === true) {
      element.setAttribute(key, "");
    } else {
      element.setAttribute(key, String(value));
    }
  }
  append(element, children);
  return element;
}

function append(element, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

export function clear(element, ...children) {
  element.replaceChildren();
  append(element, children);
  return element;
}

const FOCUS_KEYS = ["card", "tile", "meld", "seat", "drag"];

// Redraws `root` with `render()` and puts the keyboard focus back on the element that stands
// for the same thing (same id, card, tile or meld), so a keyboard player keeps their place.
export function keepFocus(root, render) {
  const active = document.activeElement;
  let selector = null;
  if (active && active !== root && root.contains(active)) {
    if (active.id) selector = `#${CSS.escape(active.id)}`;
    else {
      const key = FOCUS_KEYS.find((name) => active.dataset?.[name] !== undefined);
      const kind = active.classList[0] ? `.${CSS.escape(active.classList[0])}` : "";
      if (key) selector = `${active.tagName.toLowerCase()}${kind}[data-${key}="${CSS.escape(active.dataset[key])}"]`;
    }
  }
  render();
  if (selector) root.querySelector(selector)?.focus({ preventScroll: true });
}
