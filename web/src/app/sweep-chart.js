// The sweep panel's chart (loaded with the first finished sweep): one result field against one
// swept input, a line per value of another swept input. The worker picks the points
// (app/sweep-data.js chart(): every other input at its first value, at most a few thousand
// points); this file only draws them, on log axes where the values span decades.
import { Chart } from 'chart.js';
import '../charts.js'; // registers the controllers, scales and plugins the page's charts use (line, log axes, legend)
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

/** Draws (or redraws) the chart on `canvas`; returns the Chart. `data`: the worker's chart() answer. */
export function drawSweepChart(chart, canvas, data, { x, y, headerOf, kinds }) {
  const c = themeColors();
  const scales = axisScales(data);
  const labels =
    scales.x === 'category' ? [...new Set(data.series.flatMap((s) => s.points.map((p) => String(p.x))))] : undefined;
  const datasets = data.series.map((s, k) => ({
    label: s.name,
    data: s.points.map((p) => ({ x: scales.x === 'category' ? String(p.x) : p.x, y: p.y })),
    borderColor: c.series[k % c.series.length],
    backgroundColor: c.series[k % c.series.length],
    borderDash: k >= c.series.length ? [6, 4] : undefined,
    pointRadius: s.points.length > 200 ? 0 : 2.5,
    borderWidth: 1.5,
    spanGaps: false,
  }));
  // A yes/no field's axis (0..1) reads as plain numbers (the core's "number" kind is cost in USD).
  const fmt = (key) => (v) => (kinds[key] === 'boolean' ? formatNumber(v) : formatByKind(kinds[key], v));
  // A log axis labels 1, 2 and 5 of each decade only (Chart.js would label every tick).
  const logTick = (key) => (v) => {
    const m = Math.round((v / 10 ** Math.floor(Math.log10(v) + 1e-9)) * 1000) / 1000;
    return m === 1 || m === 2 || m === 5 ? fmt(key)(v) : '';
  };
  const axis = (key, type) => ({
    type,
    title: { display: true, text: `${headerOf(key)}${type === 'logarithmic' ? ' (log)' : ''}`, color: c.text },
    grid: { color: c.grid },
    border: { color: c.grid },
    ticks:
      type === 'category'
        ? { color: c.text }
        : { color: c.text, callback: type === 'logarithmic' ? logTick(key) : fmt(key), maxTicksLimit: 10 },
  });
  const options = {
    responsive: true,
    maintainAspectRatio: false,
    animation: false,
    scales: { x: axis(x, scales.x), y: axis(y, scales.y) },
    plugins: {
      legend: { display: data.series.length > 1, labels: { color: c.text, boxWidth: 12 } },
      tooltip: {
        callbacks: {
          label: (ctx) =>
            `${ctx.dataset.label}: ${fmt(y)(ctx.parsed.y)} at ${headerOf(x)} ${ctx.label || ctx.parsed.x}`,
        },
      },
    },
  };
  if (chart && chart.canvas === canvas) {
    chart.options = options;
    chart.data = { labels, datasets };
    chart.update('none');
  } else {
    chart?.destroy();
    chart = new Chart(canvas, { type: 'line', data: { labels, datasets }, options });
  }
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
