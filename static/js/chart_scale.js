// The arithmetic of the rating chart: round tick values, and a rating's history laid out on a
// plot area (time across, rating up). Pure: the chart view draws what this computes.

const DAY_MS = 24 * 60 * 60 * 1000;

// A round step (1, 2 or 5 times a power of ten) that cuts `span` into about `count` parts.
export function niceStep(span, count) {
  if (!(span > 0) || !(count > 0)) return 1;
  const rough = span / count;
  const power = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 5, 10].find((m) => m * power >= rough) * power;
  return step;
}

// The round values from below `min` to above `max`, `step` apart: a value axis's ticks.
export function roundTicks(min, max, count = 4) {
  if (min === max) {
    min -= 10;
    max += 10;
  }
  const step = niceStep(max - min, count);
  const low = Math.floor(min / step) * step;
  const high = Math.ceil(max / step) * step;
  const ticks = [];
  for (let value = low; value <= high + step / 2; value += step) ticks.push(Math.round(value));
  return ticks;
}

export function linear([d0, d1], [r0, r1]) {
  if (d0 === d1) return () => (r0 + r1) / 2;
  return (value) => r0 + ((value - d0) / (d1 - d0)) * (r1 - r0);
}

// points: [{at (ISO text or epoch ms), rating}], oldest first; box: {width, height, left, right,
// top, bottom} (the margins hold the axes' labels). Returns the points' positions, the line's
// SVG path (one command per point), the rating ticks and up to `timeTicks` time ticks.
export function ratingChart(points, box, { timeTicks = 4 } = {}) {
  const times = points.map((p) => (typeof p.at === "number" ? p.at : Date.parse(p.at)));
  const ratings = points.map((p) => p.rating);
  const values = roundTicks(Math.min(...ratings), Math.max(...ratings));
  const plot = { x0: box.left, x1: box.width - box.right, y0: box.height - box.bottom, y1: box.top };
  const x = linear([Math.min(...times), Math.max(...times)], [plot.x0, plot.x1]);
  const y = linear([values[0], values[values.length - 1]], [plot.y0, plot.y1]);
  const positions = points.map((_, i) => ({ x: round(x(times[i])), y: round(y(ratings[i])) }));
  const path = positions.map((p, i) => `${i ? "L" : "M"}${p.x} ${p.y}`).join(" ");
  const first = Math.min(...times);
  const last = Math.max(...times);
  const span = last - first;
  const across = span === 0 ? [first] : spread(first, last, Math.min(timeTicks, points.length));
  return {
    plot,
    positions,
    path,
    ratingTicks: values.map((value) => ({ value, y: round(y(value)) })),
    timeTicks: across.map((at) => ({ at, x: round(x(at)) })),
    // Labels name the day, or the time of day when the whole history fits in one.
    timeUnit: span < DAY_MS && new Date(first).toDateString() === new Date(last).toDateString() ? "time" : "day",
  };
}

function spread(first, last, count) {
  if (count < 2) return [first];
  return Array.from({ length: count }, (_, i) => first + ((last - first) * i) / (count - 1));
}

function round(value) {
  return Math.round(value * 10) / 10;
}
