// A rating over time as an inline SVG line chart: a rating axis with round values, a time
// axis with dates, and a dot per match (its rating on hover).

import { ratingChart } from "../chart_scale.js";
import { language, t } from "../i18n.js";

const NS = "http://www.w3.org/2000/svg";
const HEIGHT = 220;
const MARGIN = { left: 48, right: 16, top: 26, bottom: 30 };

function svg(tag, attributes = {}, ...children) {
  const element = document.createElementNS(NS, tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, String(value));
  for (const child of children.flat(Infinity)) {
    if (child !== null && child !== undefined) element.append(child);
  }
  return element;
}

function timeLabel(at, unit) {
  const options = unit === "time" ? { hour: "2-digit", minute: "2-digit" } : { month: "short", day: "numeric" };
  return new Date(at).toLocaleString(language(), options);
}

// history: [{at, rating, match_id}], oldest first; width: the pixels the chart may take.
export function ratingChartElement(history, { width, label }) {
  const box = { width: Math.max(260, Math.round(width)), height: HEIGHT, ...MARGIN };
  const chart = ratingChart(history, box);
  const { plot } = chart;
  const yAxis = chart.ratingTicks.map((tick) => [
    svg("line", { class: "grid", x1: plot.x0, x2: plot.x1, y1: tick.y, y2: tick.y }),
    svg("text", { class: "tick", x: plot.x0 - 6, y: tick.y, "text-anchor": "end", "dominant-baseline": "middle" }, String(tick.value)),
  ]);
  // Matches minutes apart would repeat a label: each label is written once.
  const labelled = [];
  for (const tick of chart.timeTicks) {
    const text = timeLabel(tick.at, chart.timeUnit);
    if (labelled.at(-1)?.text !== text) labelled.push({ ...tick, text });
  }
  const xAxis = labelled.map((tick, i, all) => {
    const anchor = all.length === 1 ? "middle" : i === 0 ? "start" : i === all.length - 1 ? "end" : "middle";
    return svg("text", { class: "tick", x: all.length === 1 ? (plot.x0 + plot.x1) / 2 : tick.x, y: plot.y0 + 18, "text-anchor": anchor }, tick.text);
  });
  const dots = chart.positions.map((p, i) =>
    svg(
      "circle",
      { class: "dot", cx: p.x, cy: p.y, r: history.length > 60 ? 2 : 3.5 },
      svg("title", {}, `${timeLabel(history[i].at, "day")} ${timeLabel(history[i].at, "time")}: ${history[i].rating}`),
    ),
  );
  return svg(
    "svg",
    {
      class: "rating-chart",
      viewBox: `0 0 ${box.width} ${box.height}`,
      width: box.width,
      height: box.height,
      role: "img",
      "aria-label": label,
    },
    svg("title", {}, label),
    yAxis,
    svg("line", { class: "axis", x1: plot.x0, x2: plot.x1, y1: plot.y0, y2: plot.y0 }),
    svg("line", { class: "axis", x1: plot.x0, x2: plot.x0, y1: plot.y0, y2: plot.y1 }),
    xAxis,
    svg("text", { class: "axis-name", x: 4, y: 12 }, t("profile.axis_rating")),
    svg("path", { class: "line", d: chart.path, fill: "none" }),
    dots,
  );
}
