// The rules of both games, in the current language.

import { language, t } from "../i18n.js";
import RULES from "../lang/rules.js";
import { clear, h } from "./dom.js";

function paragraphs(lines) {
  const out = [];
  let list = null;
  for (const line of lines) {
    if (line.startsWith("- ")) {
      list ??= h("ul");
      list.append(h("li", {}, line.slice(2)));
      continue;
    }
    if (list) out.push(list);
    list = null;
    out.push(h("p", {}, line));
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
