// The rules of both games, in the current language.

import { cardName } from "../game_text.js";
import { language, listText, t } from "../i18n.js";
import RULES from "../lang/rules.js";
import { cardElement } from "./cards.js";
import { clear, h } from "./dom.js";
import { tileElement, tileName } from "./tiles.js";

const PICTURE = /\{(cards|tiles):([^}]+)\}/g;

// A line's text with each {cards:...} or {tiles:...} drawn as the pictures it names (each read
// out by name to a screen reader).
function withPictures(line) {
  const parts = [];
  let at = 0;
  for (const match of line.matchAll(PICTURE)) {
    parts.push(line.slice(at, match.index));
    const names = match[2].trim().split(/\s+/);
    const cards = match[1] === "cards";
    parts.push(
      h(
        "span.example",
        { role: "img", "aria-label": listText(names.map(cards ? cardName : tileName)) },
        names.map((name) => (cards ? cardElement(name, { small: true, label: cardName(name) }) : tileElement(name))),
      ),
    );
    at = match.index + match[0].length;
  }
  parts.push(line.slice(at));
  return parts;
}

function paragraphs(lines) {
  const out = [];
  let list = null;
  for (const line of lines) {
    if (line.startsWith("- ")) {
      list ??= h("ul");
      list.append(h("li", {}, withPictures(line.slice(2))));
      continue;
    }
    if (list) out.push(list);
    list = null;
    out.push(h("p", {}, withPictures(line)));
  }
  if (list) out.push(list);
  return out;
}

export function rulesPage(main) {
  function draw() {
    const rules = RULES[language()] ?? RULES.en;
    const game = (name, key) =>
      h(
        "article",
        { id: `rules-${name}` },
        h("h2", {}, t(key)),
        rules[name].map(([title, lines]) => h("section", {}, h("h3", {}, title), paragraphs(lines))),
      );
    clear(
      main,
      h(
        "div.rules.panel",
        {},
        h("h1", {}, t("rules.title")),
        h(
          "nav",
          {},
          h("a.button", { href: "#rules-gin_rummy" }, t("rules.gin")),
          h("a.button", { href: "#rules-rummikub" }, t("rules.rummikub")),
        ),
        game("gin_rummy", "rules.gin"),
        game("rummikub", "rules.rummikub"),
      ),
    );
  }
  draw();
  return { redraw: draw, dispose() {} };
}
