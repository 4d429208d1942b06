#!/usr/bin/env node
// Renders one exported trace as an SVG waterfall, the way a trace viewer (Jaeger, Tempo,
// Langfuse) lays it out: a row per span in parent-then-start order, indented by depth,
// coloured by service, with its duration; failed spans outlined in red. It also prints what
// the trace is made of (spans per service, the share of database spans) on stderr.
//
//   node scripts/docs/render-trace.mjs <export.json> [<out.svg>]
//
// The export is what test/e2e/genai-traces.e2e-spec.ts writes with WAGGLE_TRACE_EXPORT=<file>
// ({title, spans: [{service, name, spanId, parentSpanId, startTimeUnixNano, endTimeUnixNano,
// status, attributes}]}); `npm run docs:trace` runs that test and this script.
import { readFileSync, writeFileSync } from 'node:fs';

const [input, output] = process.argv.slice(2);
if (!input) {
  process.stderr.write('usage: node scripts/docs/render-trace.mjs <export.json> [<out.svg>]\n');
  process.exit(2);
}
const { title = 'trace', spans } = JSON.parse(readFileSync(input, 'utf8'));
if (!Array.isArray(spans) || spans.length === 0) {
  process.stderr.write(`render-trace: ${input} holds no spans\n`);
  process.exit(1);
}

const PALETTE = {
  'waggle-gateway': '#4e79a7',
  'waggle-invocation': '#f28e2b',
  'waggle-agent': '#59a14f',
  'waggle-knowledge-base': '#b07aa1',
  'waggle-catalog': '#9c755f',
  'waggle-callback-dispatcher': '#edc948',
  'waggle-asset': '#76b7b2',
};
const FALLBACK_COLOURS = ['#e15759', '#ff9da7', '#bab0ac'];
const colourOf = (() => {
  const extra = new Map();
  return (service) =>
    PALETTE[service] ?? extra.get(service) ?? extra.set(service, FALLBACK_COLOURS[extra.size % FALLBACK_COLOURS.length]).get(service);
})();

const isDatabase = (span) => span.attributes?.['db.system.name'] === 'postgresql' || span.attributes?.['db.system'] === 'postgresql';
const nanos = (value) => BigInt(value);
const t0 = spans.reduce(
  (min, span) => (nanos(span.startTimeUnixNano) < min ? nanos(span.startTimeUnixNano) : min),
  nanos(spans[0].startTimeUnixNano),
);
const tEnd = spans.reduce((max, span) => (nanos(span.endTimeUnixNano) > max ? nanos(span.endTimeUnixNano) : max), 0n);
const ms = (value) => Number(value - t0) / 1e6;
const totalMs = Math.max(Number(tEnd - t0) / 1e6, 0.001);

// Parent-then-start order, each span under its parent.
const byId = new Map(spans.map((span) => [span.spanId, span]));
const children = new Map();
const roots = [];
for (const span of spans) {
  if (span.parentSpanId && byId.has(span.parentSpanId)) {
    if (!children.has(span.parentSpanId)) children.set(span.parentSpanId, []);
    children.get(span.parentSpanId).push(span);
  } else roots.push(span);
}
const byStart = (a, b) => (nanos(a.startTimeUnixNano) < nanos(b.startTimeUnixNano) ? -1 : 1);
const rows = [];
const visit = (span, depth) => {
  rows.push({ span, depth });
  for (const child of (children.get(span.spanId) ?? []).sort(byStart)) visit(child, depth + 1);
};
for (const root of roots.sort(byStart)) visit(root, 0);

const escape = (text) =>
  String(text).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);
const ROW = 20;
const TOP = 64;
const LABEL_WIDTH = 470;
const BAR_WIDTH = 620;
const WIDTH = LABEL_WIDTH + BAR_WIDTH + 90;
const services = [...new Set(spans.map((span) => span.service))];
const legendTop = TOP + rows.length * ROW + 16;
const HEIGHT = legendTop + 24 + Math.ceil(services.length / 4) * 20;
const x = (at) => LABEL_WIDTH + (at / totalMs) * BAR_WIDTH;

const svg = [
  `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" font-family="ui-monospace, Menlo, Consolas, monospace" font-size="12">`,
  `<rect width="100%" height="100%" fill="#ffffff"/>`,
  `<text x="12" y="22" font-size="15" font-weight="bold">${escape(title)}</text>`,
  `<text x="12" y="42" fill="#555">${spans.length} spans, ${services.length} services, ${totalMs.toFixed(1)} ms; trace ${escape(spans[0].traceId ?? '')}</text>`,
];
for (let tick = 0; tick <= 4; tick += 1) {
  const at = (totalMs * tick) / 4;
  svg.push(
    `<line x1="${x(at)}" y1="${TOP - 8}" x2="${x(at)}" y2="${TOP + rows.length * ROW}" stroke="#e4e4e4"/>`,
    `<text x="${x(at)}" y="${TOP - 12}" text-anchor="middle" fill="#777">${at.toFixed(0)} ms</text>`,
  );
}
rows.forEach(({ span, depth }, index) => {
  const y = TOP + index * ROW;
  const start = ms(nanos(span.startTimeUnixNano));
  const duration = Number(nanos(span.endTimeUnixNano) - nanos(span.startTimeUnixNano)) / 1e6;
  const failed = span.status?.code === 2;
  if (index % 2 === 1) svg.push(`<rect x="0" y="${y}" width="${WIDTH}" height="${ROW}" fill="#f7f7f7"/>`);
  const label = `${span.name}`.length > 52 - depth * 2 ? `${span.name.slice(0, 50 - depth * 2)}…` : span.name;
  svg.push(
    `<circle cx="${14 + depth * 12}" cy="${y + ROW / 2}" r="4" fill="${colourOf(span.service)}"/>`,
    `<text x="${22 + depth * 12}" y="${y + 14}"${failed ? ' fill="#c0392b"' : ''}>${escape(label)}</text>`,
    `<rect x="${x(start)}" y="${y + 4}" width="${Math.max((duration / totalMs) * BAR_WIDTH, 1.5)}" height="${ROW - 8}" rx="2" fill="${colourOf(span.service)}"${failed ? ' stroke="#c0392b" stroke-width="2"' : ''}/>`,
    `<text x="${Math.min(x(start + duration) + 4, WIDTH - 80)}" y="${y + 14}" fill="#555">${duration.toFixed(duration < 10 ? 2 : 1)} ms</text>`,
  );
});
services.forEach((service, index) => {
  const lx = 12 + (index % 4) * 290;
  const ly = legendTop + 8 + Math.floor(index / 4) * 20;
  svg.push(
    `<rect x="${lx}" y="${ly}" width="12" height="12" rx="2" fill="${colourOf(service)}"/>`,
    `<text x="${lx + 18}" y="${ly + 11}">${escape(service)}</text>`,
  );
});
svg.push('</svg>');

const database = spans.filter(isDatabase).length;
const perService = services.map((service) => `${service} ${spans.filter((span) => span.service === service).length}`).join(', ');
process.stderr.write(
  `${spans.length} spans (${perService}); database spans ${database} (${((database / spans.length) * 100).toFixed(0)} %)\n`,
);
if (output) writeFileSync(output, `${svg.join('\n')}\n`);
