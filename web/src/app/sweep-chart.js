// The sweep panel's chart (loaded with the first finished sweep): one result field against one
// swept input, a line per value of another swept input. The worker picks the points
// (app/sweep-data.js chart(): every other input at its first value, at most a few thousand
// points); this file only draws them, on log axes where the values span decades.
import { createPlot } from '../plot.js';
import { formatByKind, formatNumber } from '../format.js';

const SPAN_FOR_LOG = 16; // a positive axis whose max / min reaches this is drawn logarithmic

function themeColors() {
  const cs = getComputedStyle(document.documentElement);
  const css = (name, fallback) => cs.getPropertyValue(name).trim() || fallback;
  const series = [1, 2, 3, 4, 5, 6].map((i) => css(`--chart-${i}`, '#4e79a7'));
  return { text: css('--muted', '#666'), grid: css('--grid', '#ddd'), series };
}

/** 'logarithmic' when every value is positive and they span SPAN_FOR_LOG or more, else 'linear'. */
function scaleFor(values) {
  const v = values.filter((x) => typeof x === 'number' && Number.isFinite(x));
  if (!v.length || v.some((x) => x <= 0)) return 'linear';
  return Math.max(...v) / Math.min(...v) >= SPAN_FOR_LOG ? 'logarithmic' : 'linear';
}

function axisScales(data) {
  const pts = data.series.flatMap((s) => s.points);
  const categorical = pts.some((p) => typeof p.x !== 'number');
  return {
    x: categorical ? 'category' : scaleFor(pts.map((p) => p.x)),
    y: scaleFor(pts.map((p) => p.y)),
  };
}

/** Draws (or redraws) the chart on `canvas`; returns the chart (../plot.js). `data`: the worker's chart() answer. */
export function drawSweepChart(chart, canvas, data, { x, y, headerOf, kinds }) {
  const c = themeColors();
  const scales = axisScales(data);
  const labels =
    scales.x === 'category' ? [...new Set(data.series.flatMap((s) => s.points.map((p) => String(p.x))))] : undefined;
  // A yes/no field's axis (0..1) reads as plain numbers (the core's "number" kind is cost in USD).
  const fmt = (key) => (v) => (kinds[key] === 'boolean' ? formatNumber(v) : formatByKind(kinds[key], v));
  const type = (scale) => (scale === 'logarithmic' ? 'log' : scale);
  const title = (key, scale) => `${headerOf(key)}${scale === 'logarithmic' ? ' (log)' : ''}`;
  const series = data.series.map((s, k) => {
    const color = c.series[k % c.series.length];
    const common = {
      label: s.name,
      color,
      style: 'line',
      dash: k >= c.series.length ? [6, 4] : undefined,
      radius: s.points.length > 200 ? 0 : 2.5,
      width: 1.5,
      value: fmt(y),
    };
    if (labels) {
      const at = new Map(s.points.map((p) => [String(p.x), p.y]));
      return { ...common, values: labels.map((l) => at.get(l) ?? null) };
    }
    return { ...common, points: s.points.map((p) => ({ x: p.x, y: p.y })) };
  });
  const spec = {
    kind: 'xy',
    legend: data.series.length > 1,
    x: labels
      ? { type: 'category', labels, title: title(x, scales.x) }
      : { type: type(scales.x), fmt: fmt(x), title: title(x, scales.x) },
    axes: { y: { type: type(scales.y), fmt: fmt(y), title: title(y, scales.y) } },
    series,
  };
  if (!chart || chart.canvas !== canvas) {
    chart?.destroy();
    chart = createPlot(canvas);
  }
  chart.draw(spec, { text: c.text, grid: c.grid });
  canvas = chart.canvas;
  canvas.flopcastSeries = data.series; // for tests: exactly what is drawn
  canvas.dataset.series = String(data.series.length);
  canvas.dataset.xScale = scales.x;
  canvas.dataset.yScale = scales.y;
  canvas.dataset.rendered = '1';
  canvas.setAttribute(
    'aria-label',
    `${headerOf(y)} against ${headerOf(x)}, ${data.series.length} line${data.series.length === 1 ? '' : 's'}`,
  );
  return chart;
}

/** The sentence under the chart: what is drawn and what is held fixed. */
export function describe(data, { x, group, headerOf, kinds }) {
  const parts = [];
  if (group)
    parts.push(
      data.groups > data.series.length
        ? `One line for each of the first ${data.series.length} of ${data.groups} values of ${headerOf(group)}.`
        : `One line per ${headerOf(group)}.`,
    );
  if (data.shownX < data.xValues)
    parts.push(`${data.shownX} of the ${data.xValues} values of ${headerOf(x)}, evenly picked.`);
  if (data.fixed.length)
    parts.push(
      `Every other swept input at its first value: ${data.fixed
        .map((f) => `${headerOf(f.key)} ${typeof f.value === 'number' ? formatByKind(kinds[f.key], f.value) : f.value}`)
        .join(', ')}.`,
    );
  else parts.push('Every point of the sweep is drawn.');
  return parts.join(' ');
}
