// BeaconNet history: one day of a store (/stores/<major>/history), or of a set of stores or the
// whole chain (/history, ?stores=101,103-110), from /api/history (beacon-history's report),
// drawn with D3 (Debian's libjs-d3, served by the dashboard itself at /d3.min.js: nothing is
// loaded from elsewhere, so the page works on an isolated network). A module script: its names
// stay out of the page's global scope; D3 is the classic script before it (window.d3).
const d3 = window.d3;
const byId = (id) => document.getElementById(id);
const pad = (n) => String(n).padStart(2, '0');
const route = location.pathname.match(/^\/stores\/(\d+)\/history\/?$/);
// One store's page, or (at /history) the stores asked for: the login's own when none are.
const major = route ? route[1] : null;
const storesAsked = major ? null : new URLSearchParams(location.search).get('stores');
// Hours and days are the browser's: the report is asked for in its time zone.
const zone = Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
const colour = d3.scale.category10();
const margin = { top: 10, right: 16, bottom: 28, left: 40 };

const localDay = (d) => `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
function nextDay(day) {
  const [y, m, d] = day.split('-').map(Number);
  return new Date(Date.UTC(y, m - 1, d + 1)).toISOString().slice(0, 10);
}
const clock = (ms) => { const d = new Date(ms); return `${pad(d.getHours())}:${pad(d.getMinutes())}`; };
const minutes = (ms) => (ms === null || ms === undefined ? null : ms / 60000);
const sectionName = (report, minor) => (report.sections.find((s) => s.section === minor) || {}).name || `Section ${minor}`;

// An SVG of the container's width and `height`, its drawing area inside the margins.
function frame(id, height) {
  const root = d3.select(`#${id}`);
  root.selectAll('*').remove();
  const width = Math.max(320, root.node().clientWidth || 600);
  const svg = root.append('svg').attr('class', 'history-chart').attr('viewBox', `0 0 ${width} ${height}`).attr('width', '100%');
  const g = svg.append('g').attr('transform', `translate(${margin.left},${margin.top})`);
  return { root, g, width: width - margin.left - margin.right, height: height - margin.top - margin.bottom };
}

function axes(area, x, y, xAxis) {
  area.g.append('g').attr('class', 'axis x').attr('transform', `translate(0,${area.height})`).call(xAxis);
  area.g.append('g').attr('class', 'axis y').call(d3.svg.axis().scale(y).orient('left').ticks(5).tickFormat(d3.format('d')));
}

function empty(id, text) {
  const root = d3.select(`#${id}`);
  root.selectAll('*').remove();
  root.append('p').attr('class', 'muted chart-empty').text(text);
}

function drawOccupancy(report) {
  if (report.occupancy.length === 0) return empty('occupancy-chart', 'Nobody was inside that day.');
  const area = frame('occupancy-chart', 260);
  const x = d3.time.scale().domain([new Date(report.from), new Date(report.to)]).range([0, area.width]);
  const highest = d3.max(report.occupancy, (s) => d3.max(s.steps, (step) => step.mean)) || 1;
  const y = d3.scale.linear().domain([0, Math.max(1, highest)]).nice().range([area.height, 0]);
  axes(area, x, y, d3.svg.axis().scale(x).orient('bottom').ticks(d3.time.hours, 3).tickFormat(d3.time.format('%H:%M')));
  const line = d3.svg.line().interpolate('step-after').x((step) => x(new Date(step.start))).y((step) => y(step.mean));
  area.g.selectAll('path.line').data(report.occupancy).enter().append('path')
    .attr('class', 'line').attr('data-section', (s) => s.section).attr('stroke', (s) => colour(s.section))
    .attr('d', (s) => line(s.steps.concat([{ start: report.to, mean: s.steps.length ? s.steps[s.steps.length - 1].mean : 0 }])))
    .append('title').text((s) => sectionName(report, s.section));
  const legend = area.root.append('ul').attr('class', 'chart-legend');
  legend.selectAll('li').data(report.occupancy).enter().append('li').each(function (s) {
    const item = d3.select(this);
    item.append('span').attr('class', 'swatch').append('svg').attr('width', 12).attr('height', 12)
      .append('rect').attr('width', 12).attr('height', 12).attr('fill', colour(s.section));
    item.append('span').text(` ${sectionName(report, s.section)}`);
  });
}

function drawFootfall(report) {
  const area = frame('footfall-chart', 240);
  const x = d3.scale.ordinal().domain(report.hourly.map((h) => h.start)).rangeRoundBands([0, area.width], 0.15);
  const y = d3.scale.linear().domain([0, Math.max(1, d3.max(report.hourly, (h) => h.visits))]).nice().range([area.height, 0]);
  const every = Math.ceil(report.hourly.length / 12);
  axes(area, x, y, d3.svg.axis().scale(x).orient('bottom')
    .tickValues(report.hourly.filter((h, i) => i % every === 0).map((h) => h.start)).tickFormat((t) => clock(t).slice(0, 2)));
  const bars = area.g.selectAll('rect.bar').data(report.hourly).enter();
  bars.append('rect').attr('class', 'bar').attr('x', (h) => x(h.start)).attr('width', x.rangeBand())
    .attr('y', (h) => y(h.visits)).attr('height', (h) => area.height - y(h.visits))
    .append('title').text((h) => `${clock(h.start)}: ${h.visits} visits by ${h.unique_devices} devices`);
  bars.append('circle').attr('class', 'unique').attr('cx', (h) => x(h.start) + x.rangeBand() / 2).attr('cy', (h) => y(h.unique_devices))
    .attr('r', (h) => (h.visits > 0 ? 2.5 : 0));
}

const storeName = (s) => s.name || `Store ${s.store}`;

function drawDwell(report) {
  // A store's page: the store, then its sections; several stores: one row a store.
  const rows = (major
    ? report.store_summaries.map((s) => ({ name: 'Whole store', median: s.dwell_median, p90: s.dwell_p90, visits: s.visits }))
      .concat(report.sections.map((s) => ({ name: sectionName(report, s.section), median: s.dwell_median, p90: s.dwell_p90, visits: s.visits })))
    : report.store_summaries.map((s) => ({ name: storeName(s), median: s.dwell_median, p90: s.dwell_p90, visits: s.visits })))
    .filter((row) => row.p90 !== null && row.p90 !== undefined);
  if (rows.length === 0) return empty('dwell-chart', 'No visit ended that day.');
  const left = 110;
  const area = frame('dwell-chart', 40 + rows.length * 26);
  const x = d3.scale.linear().domain([0, d3.max(rows, (r) => minutes(r.p90))]).nice().range([0, area.width - left]);
  const y = d3.scale.ordinal().domain(rows.map((r) => r.name)).rangeRoundBands([0, area.height], 0.25);
  const plot = area.g.append('g').attr('transform', `translate(${left - margin.left},0)`);
  plot.append('g').attr('class', 'axis x').attr('transform', `translate(0,${area.height})`).call(d3.svg.axis().scale(x).orient('bottom').ticks(6));
  plot.append('g').attr('class', 'axis y').call(d3.svg.axis().scale(y).orient('left'));
  const row = plot.selectAll('g.dwell').data(rows).enter().append('g').attr('class', 'dwell').attr('transform', (r) => `translate(0,${y(r.name)})`);
  row.append('rect').attr('class', 'p90').attr('width', (r) => x(minutes(r.p90))).attr('height', y.rangeBand());
  row.append('rect').attr('class', 'median').attr('width', (r) => x(minutes(r.median))).attr('height', y.rangeBand());
  row.append('title').text((r) => `${r.name}: median ${Math.round(minutes(r.median))} min, 90th percentile ${Math.round(minutes(r.p90))} min (${r.visits} visits)`);
}

// The stores' visits that ended, counted by how long they lasted (the report's dwell bins,
// added up over the stores).
function drawDwellBins(report) {
  const counts = report.dwell_bin_starts.map((start, i) => d3.sum(report.store_summaries, (s) => s.dwell_histogram[i] || 0));
  if (counts.every((count) => count === 0)) return empty('dwell-bins-chart', 'No visit ended that day.');
  const starts = report.dwell_bin_starts.map((s) => s / 60);
  const labels = starts.map((from, i) => (i + 1 < starts.length ? `${from}–${starts[i + 1]}` : `${from}+`));
  const area = frame('dwell-bins-chart', 220);
  const x = d3.scale.ordinal().domain(labels).rangeRoundBands([0, area.width], 0.15);
  const y = d3.scale.linear().domain([0, Math.max(1, d3.max(counts))]).nice().range([area.height, 0]);
  axes(area, x, y, d3.svg.axis().scale(x).orient('bottom'));
  area.g.selectAll('rect.bin').data(counts).enter().append('rect').attr('class', 'bar bin')
    .attr('x', (count, i) => x(labels[i])).attr('width', x.rangeBand())
    .attr('y', (count) => y(count)).attr('height', (count) => area.height - y(count))
    .append('title').text((count, i) => `${labels[i]} min: ${count} visits`);
}

function drawFlows(report) {
  if (report.flows.length === 0) return empty('flow-chart', 'No moves between sections that day.');
  const minors = Array.from(new Set(report.flows.flatMap((f) => [f.from, f.to]))).sort((a, b) => a - b);
  const left = 110, top = 90;
  const area = frame('flow-chart', top + 20 + minors.length * 36);
  const size = Math.min(36, (area.width - left) / minors.length, (area.height - top) / minors.length);
  const shade = d3.scale.linear().domain([0, d3.max(report.flows, (f) => f.count)]).range(['#eef3fc', '#2d5fd3']);
  const grid = area.g.append('g').attr('transform', `translate(${left - margin.left},${top})`);
  minors.forEach((minor, i) => {
    grid.append('text').attr('class', 'flow-label row').attr('x', -6).attr('y', i * size + size / 2).text(sectionName(report, minor));
    // Upright from the column's middle: a slanted label would lean over the next column.
    grid.append('text').attr('class', 'flow-label column')
      .attr('transform', `translate(${i * size + size / 2},-6) rotate(-90)`).text(sectionName(report, minor));
  });
  const cell = grid.selectAll('g.cell').data(report.flows).enter().append('g').attr('class', 'cell')
    .attr('transform', (f) => `translate(${minors.indexOf(f.to) * size},${minors.indexOf(f.from) * size})`);
  cell.append('rect').attr('class', 'cell').attr('width', size - 2).attr('height', size - 2).attr('fill', (f) => shade(f.count));
  cell.append('text').attr('class', 'flow-count').attr('x', (size - 2) / 2).attr('y', (size - 2) / 2)
    .attr('fill', (f) => (f.count > d3.max(report.flows, (g) => g.count) / 2 ? '#fff' : '#1d2330')).text((f) => f.count);
  cell.append('title').text((f) => `${sectionName(report, f.from)} → ${sectionName(report, f.to)}: ${f.count}`);
}

const minutesText = (ms) => (ms === null || ms === undefined ? '–' : `${Math.round(minutes(ms))} min`);

function fillStores(report, day) {
  const body = d3.select('#stores-table tbody');
  body.selectAll('*').remove();
  const row = body.selectAll('tr').data(report.store_summaries).enter().append('tr').attr('data-store', (s) => s.store);
  row.append('td').append('a').attr('href', (s) => `/stores/${s.store}/history?date=${day}`).text((s) => `${storeName(s)} · ${s.store}`);
  row.append('td').text((s) => s.visits);
  row.append('td').text((s) => s.unique_devices);
  row.append('td').text((s) => minutesText(s.dwell_median));
  row.append('td').text((s) => minutesText(s.dwell_p90));
  row.append('td').text((s) => (s.peak_at ? `${s.peak_occupancy} at ${clock(s.peak_at)}` : '–'));
}

function summariseStores(report) {
  byId('history-title').textContent = storesAsked ? `Stores ${storesAsked}` : 'All your stores';
  if (report.store_summaries.length === 0) return 'No visits recorded that day.';
  const visits = d3.sum(report.store_summaries, (s) => s.visits);
  const devices = d3.sum(report.daily, (d) => d.unique_devices);
  const stores = report.store_summaries.length;
  return `${visits} visits by ${devices} devices in ${stores} ${stores === 1 ? 'store' : 'stores'}.`;
}

function summarise(report) {
  if (!major) return summariseStores(report);
  const store = report.store_summaries[0];
  byId('history-title').textContent = `${store && store.name ? store.name : `Store ${major}`} · ${major}`;
  if (!store) return 'No visits recorded that day.';
  const peak = store.peak_at ? `, peak ${store.peak_occupancy} inside at ${clock(store.peak_at)}` : '';
  const dwell = store.dwell_median === null ? '' : `; dwell median ${Math.round(minutes(store.dwell_median))} min, 90th percentile ${Math.round(minutes(store.dwell_p90))} min`;
  return `${store.visits} visits by ${store.unique_devices} devices${dwell}${peak}.`;
}

async function load(day) {
  document.body.dataset.charts = 'loading';
  byId('history-error').hidden = true;
  const span = `from=${day}&to=${nextDay(day)}&time-zone=${encodeURIComponent(zone)}&step=15`;
  const url = major ? `/api/history/stores/${major}?${span}`
    : `/api/history?${span}${storesAsked ? `&stores=${encodeURIComponent(storesAsked)}` : ''}`;
  const response = await fetch(url, { cache: 'no-store' });
  if (response.status === 401) return location.assign(`/login?next=${encodeURIComponent(location.pathname)}`);
  let body = null;
  try { body = await response.json(); } catch (e) { body = null; }
  if (!response.ok) {
    const message = (body && body.error && body.error.message) || `The server answered ${response.status}.`;
    byId('history-error').textContent = message;
    byId('history-error').hidden = false;
    byId('history-error').dataset.status = response.status;
    byId('history-summary').textContent = '';
    document.body.dataset.charts = 'error';
    return;
  }
  byId('history-summary').textContent = summarise(body);
  if (major) {
    drawOccupancy(body);
    drawFlows(body);
  } else {
    fillStores(body, day);
  }
  drawFootfall(body);
  drawDwell(body);
  drawDwellBins(body);
  document.body.dataset.charts = 'drawn';
}

const asked = new URLSearchParams(location.search).get('date');
const day = byId('day');
day.value = asked && /^\d{4}-\d{2}-\d{2}$/.test(asked) ? asked : localDay(new Date());
byId('zone').textContent = `hours in ${zone}`;
byId('live-link').href = major ? `/stores/${major}` : '/';
document.querySelectorAll('[data-scope]').forEach((panel) => { panel.hidden = (panel.dataset.scope === 'store') !== Boolean(major); });
day.addEventListener('change', () => {
  if (!day.value) return;
  const search = new URLSearchParams(location.search);
  search.set('date', day.value);
  history.replaceState(null, '', `${location.pathname}?${search}`);
  load(day.value);
});
load(day.value);
