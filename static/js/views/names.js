// A name someone typed, as text only and isolated from the text around it, so a name written
// right to left (or ending in digits) cannot reorder the sentence it sits in.

import { h } from "./dom.js";

export function nameElement(name, tag = "bdi.name") {
  return h(tag, {}, name);
}
