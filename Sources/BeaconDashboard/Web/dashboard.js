// BeaconNet dashboard: draws each store's plan from its retained layout, colours the sections by
// occupancy and keeps everything live from the server-sent events of /api/stream. Plain
// JavaScript, no framework and nothing loaded from elsewhere, so it works on an offline network.
// A module script: its names stay out of the page's global scope.
const SVG = 'http://www.w3.org/2000/svg';
const view = {
  mode: 'chain',       // chain (/: the overview), store (/stores/<major>) or health (/health)
  stores: new Map(),   // major → the store as /api/stores shows it
  only: null,          // the major of /stores/<major>, or null for every store
  events: [],          // newest first
  broker: null,        // { state, since, detail }
  server: 'connecting',// the event stream: connecting, up, down
  missing: null,       // the API's answer for an unknown store
  device: null,        // the id looked up
};
const byId = (id) => document.getElementById(id);

// Elements: el('div', { class: 'x' }, child, 'text'); SVG tags are made in the SVG namespace.
function el(tag, attributes, ...children) {
  const svg = ['svg', 'g', 'polygon', 'circle', 'text', 'line', 'title'].includes(tag);
  const node = svg ? document.createElementNS(SVG, tag) : document.createElement(tag);
  for (const [name, value] of Object.entries(attributes || {})) {
    if (value !== undefined && value !== null) node.setAttribute(name, String(value));
  }
  for (const child of children) {
    if (child !== null && child !== undefined) node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

const pad = (n) => String(n).padStart(2, '0');
function clock(ms) {
  const d = new Date(ms);
  return `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}
function age(ms) {
  const s = Math.round(ms / 1000);
  return s < 120 ? `${s} s` : s < 7200 ? `${Math.round(s / 60)} min` : `${Math.round(s / 3600)} h`;
}

// An error's sentence: the API answers errors as {"error": {"message": …}} (Hummingbird's HTTPError).
const errorMessage = (answer) => (answer.body && answer.body.error && answer.body.error.message) || `The server answered ${answer.status}.`;

// The session ended (logged out elsewhere, expired, the dashboard restarted): back to the login.
function toLogin() {
  location.assign(`/login?next=${encodeURIComponent(location.pathname)}`);
}

async function getJSON(url) {
  const response = await fetch(url, { cache: 'no-store' });
  if (response.status === 401) toLogin();
  let body = null;
  try { body = await response.json(); } catch (e) { body = null; }
  return { ok: response.ok, status: response.status, body };
}

// ---- stores and plans ----

// `–` is no count yet (the aggregator has published none for it), `0` a count of nobody.
function countWords(count) {
  return count === undefined || count === null ? 'no count published yet' : `${count} inside`;
}

function occupancyColour(count, highest) {
  if (count === undefined || count === null) return '#eceff3';
  const share = highest > 0 ? count / highest : 0;
  return `hsl(${210 - share * 170}, 70%, ${92 - share * 42}%)`;
}

// A store's plan: one drawing per floor, upper floors first, all on the same scale and frame
// (sections on different floors lie over one another on the plan).
function plan(store) {
  const drawn = store.sections.filter((s) => s.polygon && s.polygon.length >= 3);
  if (drawn.length === 0) return null;
  const floorOf = new Map(store.sections.map((s) => [s.minor, s.floor || 0]));
  const floors = [...new Set(drawn.map((s) => s.floor || 0))].sort((a, b) => b - a);
  // A gateway is drawn on its section's floor, when that floor has a plan.
  const placed = store.gateways.filter((g) => g.position && floors.includes(floorOf.get(g.minor) ?? 0));
  const points = drawn.flatMap((s) => s.polygon).concat(placed.map((g) => g.position));
  const xs = points.map((p) => p[0]), ys = points.map((p) => p[1]);
  const minX = Math.min(...xs) - 1, maxX = Math.max(...xs) + 1, minY = Math.min(...ys) - 1, maxY = Math.max(...ys) + 1;
  const frame = { minX, maxY, width: maxX - minX, height: maxY - minY };
  const highest = Math.max(0, ...store.sections.map((s) => s.count || 0));
  const onFloor = (floor) => placed.filter((g) => (floorOf.get(g.minor) ?? 0) === floor);
  if (floors.length === 1) {
    const label = floors[0] === 0 ? `Floor plan of ${store.name}` : `Floor ${floors[0]} of ${store.name}`;
    return floorPlan(store, drawn, onFloor(floors[0]), frame, highest, label);
  }
  return el('div', { class: 'floors' }, ...floors.map((floor) => el('figure', { class: 'floor', 'data-floor': floor },
    el('figcaption', { class: 'muted' }, `floor ${floor}`),
    floorPlan(store, drawn.filter((s) => (s.floor || 0) === floor), onFloor(floor), frame, highest, `Floor ${floor} of ${store.name}`))));
}

function floorPlan(store, sections, gateways, frame, highest, label) {
  const { minX, maxY, width, height } = frame;
  const font = Math.max(width, height) / 32;
  // The street is at the bottom of a plan (lowest y): flip y so that it is drawn at the bottom.
  const at = (p) => [p[0] - minX, maxY - p[1]];
  const svg = el('svg', { class: 'plan', viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-label': label });
  for (const section of sections) {
    const corners = section.polygon.map(at);
    const cx = corners.reduce((a, p) => a + p[0], 0) / corners.length;
    const cy = corners.reduce((a, p) => a + p[1], 0) / corners.length;
    const group = el('g', { class: 'section', 'data-major': store.major, 'data-minor': section.minor });
    group.append(
      el('polygon', { points: corners.map((p) => p.join(',')).join(' '), fill: occupancyColour(section.count, highest) },
        el('title', {}, `${section.name} (${store.major}/${section.minor}): ${countWords(section.count)}`)),
      el('text', { x: cx, y: cy - font * 0.7, 'font-size': font }, section.name),
      el('text', { class: 'count', x: cx, y: cy + font * 0.7, 'font-size': font * 1.4, 'data-role': 'plan-count' }, section.count ?? '–'));
    if (section.street_door) {
      const low = Math.min(...section.polygon.map((p) => p[1]));
      const edge = section.polygon.filter((p) => Math.abs(p[1] - low) < 1e-9).map((p) => p[0]);
      const mid = (Math.min(...edge) + Math.max(...edge)) / 2;
      const [x, y] = at([mid, low]);
      group.append(el('line', { class: 'door', x1: x - 1, y1: y, x2: x + 1, y2: y }, el('title', {}, 'street door')));
    }
    svg.append(group);
  }
  for (const gateway of gateways) {
    const [x, y] = at(gateway.position);
    svg.append(el('circle', { class: 'gateway', 'data-gateway': gateway.id, cx: x, cy: y, r: font * 0.3 }, el('title', {}, gateway.id)));
  }
  return svg;
}

function sectionTable(store) {
  const rows = store.sections.map((s) => el('tr', { 'data-minor': s.minor },
    el('td', {}, s.name), el('td', { class: 'num muted' }, s.minor),
    el('td', { class: 'num', 'data-role': 'section-count', 'data-major': store.major, 'data-minor': s.minor, title: countWords(s.count) },
      s.count ?? '–')));
  return el('table', {}, el('thead', {}, el('tr', {}, el('th', {}, 'section'), el('th', { class: 'num' }, 'minor'),
    el('th', { class: 'num' }, 'inside'))), el('tbody', {}, ...rows));
}

function storeCard(store) {
  const title = view.only === null ? el('a', { href: `/stores/${store.major}` }, store.name) : store.name;
  const card = el('article', { class: 'store', id: `store-${store.major}`, 'data-major': store.major },
    el('h2', {}, el('span', {}, title, el('span', { class: 'muted' }, ` · ${store.major}`)),
      el('span', { class: 'total', 'data-role': 'store-count' }, `${store.count ?? '–'} inside`)));
  const drawing = plan(store);
  if (drawing) card.append(drawing);
  else if (!store.has_layout) card.append(el('p', { class: 'muted' }, 'No layout published for this store yet: counts only.'));
  else card.append(el('p', { class: 'muted' }, 'The layout has no section polygons: counts only.'));
  card.append(sectionTable(store));
  card.append(el('p', { class: 'history-link' },
    el('a', { href: `/stores/${store.major}/history`, 'data-role': 'history-link' }, 'History: occupancy, footfall, dwell, flows')));
  return card;
}

function renderStores() {
  const root = byId('stores');
  root.replaceChildren();
  if (view.missing) {
    root.append(el('div', { class: 'error', id: 'store-error', 'data-status': view.missing.status },
      el('strong', {}, view.missing.title), el('p', {}, view.missing.message), el('a', { href: '/' }, 'All stores')));
  } else if (view.stores.size === 0 && view.mode === 'store') {
    root.append(el('p', { class: 'muted', id: 'stores-status' },
      'No store yet: waiting for an aggregator to publish its layouts (beaconnet/stores/+/layout) and counts.'));
  }
  for (const store of [...view.stores.values()].sort((a, b) => a.major - b.major)) root.append(storeCard(store));
  document.body.dataset.ready = 'true';
  document.body.dataset.stores = String(view.stores.size);
}

// One /api/stores at a time; calls meanwhile make one more when it is done.
const storesLoad = { running: false, again: false };

async function loadStores() {
  if (storesLoad.running) { storesLoad.again = true; return; }
  storesLoad.running = true;
  try { await fetchStores(); } finally { storesLoad.running = false; }
  if (storesLoad.again) { storesLoad.again = false; loadStores(); }
}

async function fetchStores() {
  try {
    if (view.only !== null) {
      const answer = await getJSON(`/api/stores/${encodeURIComponent(view.only)}`);
      if (!answer.ok) {
        view.stores = new Map();
        view.missing = { status: answer.status, title: answer.status === 404 ? `Store ${view.only} is not known` : `“${view.only}” is not a store`,
          message: errorMessage(answer) };
      } else {
        view.missing = null;
        view.stores = new Map([[answer.body.major, answer.body]]);
      }
    } else {
      const answer = await getJSON('/api/stores');
      view.stores = new Map(answer.body.stores.map((s) => [s.major, s]));
      setBroker(answer.body.broker);
      showViewer(answer.body.viewer);
    }
  } catch (e) {
    view.server = 'down';
    showBanner();
    return;
  }
  // The chain may have grown past the plans' limit while this was on its way.
  if (plansWanted()) renderStores();
}

function applyOccupancy(update) {
  if (view.mode === 'health') return;
  if (view.mode === 'chain') overviewOccupancy(update);
  if (!plansWanted()) return;
  const store = view.stores.get(update.major);
  // A store not drawn yet: the overview learns of it first, and brings the plans when they are wanted.
  if (!store) { if (view.mode === 'chain') scheduleOverview(1000); return; }
  if (update.minor === undefined || update.minor === null) {
    store.count = update.count;
    store.count_time = update.t;
  } else {
    const section = store.sections.find((s) => s.minor === update.minor);
    if (!section) { loadStores(); return; }
    section.count = update.count;
    section.count_time = update.t;
  }
  const card = byId(`store-${store.major}`);
  if (card) card.replaceWith(storeCard(store));
}

// ---- the chain overview (/) ----

// A chain this small also gets every store's plan below the overview; a larger one is looked at
// a page of the overview at a time, each store's plan one click away.
const MOST_PLANS = 12;
const overview = { query: { q: '', sort: 'major', page: 1, per_page: 50 }, answer: null, timer: null, asked: 0 };

function plansWanted() {
  return view.mode === 'store' || (view.mode === 'chain' && overview.answer !== null && overview.answer.summary.stores <= MOST_PLANS);
}

// The address's search, sort and page; what the form does not offer is left at its default.
function readOverviewQuery() {
  const p = new URLSearchParams(location.search);
  const offered = (id, value) => [...byId(id).options].some((o) => o.value === value);
  const page = Number(p.get('page'));
  overview.query = {
    q: p.get('q') || '',
    sort: offered('overview-sort', p.get('sort')) ? p.get('sort') : 'major',
    page: Number.isInteger(page) && page >= 1 && page <= 65535 ? page : 1,
    per_page: offered('overview-per-page', p.get('per_page')) ? Number(p.get('per_page')) : 50,
  };
  byId('overview-search').value = overview.query.q;
  byId('overview-sort').value = overview.query.sort;
  byId('overview-per-page').value = String(overview.query.per_page);
}

function overviewParameters() {
  const p = new URLSearchParams();
  if (overview.query.q) p.set('q', overview.query.q);
  if (overview.query.sort !== 'major') p.set('sort', overview.query.sort);
  if (overview.query.page !== 1) p.set('page', String(overview.query.page));
  if (overview.query.per_page !== 50) p.set('per_page', String(overview.query.per_page));
  return p.toString();
}

// Fetched again at most every few seconds while statuses, layouts or (sorted by them) counts change.
function scheduleOverview(delay = 5000) {
  if (overview.timer === null) overview.timer = setTimeout(loadOverview, delay);
}

async function loadOverview() {
  clearTimeout(overview.timer);
  overview.timer = null;
  const parameters = overviewParameters();
  const asked = ++overview.asked;
  let answer;
  try { answer = await getJSON(`/api/chain${parameters ? '?' + parameters : ''}`); } catch (e) { return; }
  // An answer to an older question (a timer's, before the form changed) is not shown.
  if (asked !== overview.asked) return;
  if (!answer.ok) {
    byId('overview-table').tBodies[0].replaceChildren(el('tr', {}, el('td', { colspan: 6, class: 'state-offline', 'data-status': answer.status }, errorMessage(answer))));
    return;
  }
  overview.answer = answer.body;
  setBroker(answer.body.broker);
  showViewer(answer.body.viewer);
  if (answer.body.stores.length === 0 && answer.body.matched > 0 && overview.query.page > answer.body.pages) {
    overview.query.page = answer.body.pages;
    overviewChanged();
    return;
  }
  renderOverview();
  if (plansWanted()) loadStores();
  else {
    view.stores = new Map();
    byId('stores').replaceChildren();
  }
}

function renderOverview() {
  const answer = overview.answer, s = answer.summary;
  byId('overview-summary').textContent = `· ${s.stores} store(s), ${s.inside} inside · ${s.problem} with a problem, ${s.warning} with a warning`
    + (answer.query ? ` · ${answer.matched} match “${answer.query}”` : '');
  const rows = answer.stores.map((store) => el('tr', { 'data-major': store.major, 'data-health': store.health },
    el('td', {}, el('a', { href: `/stores/${store.major}`, 'data-role': 'store-link' }, store.name)),
    el('td', { class: 'num muted' }, store.major),
    el('td', { class: 'num', 'data-role': 'overview-count', 'data-major': store.major, title: countWords(store.count) }, store.count ?? '–'),
    el('td', { class: 'num' }, store.sections),
    el('td', { class: 'num', title: `${store.gateways_offline} of ${store.gateways} gateways offline` }, `${store.gateways_offline}/${store.gateways}`),
    el('td', { class: `health-${store.health}` }, store.health,
      store.problems.length ? el('div', { class: 'problems-text' }, store.problems.join('; ')) : null)));
  if (rows.length === 0) {
    rows.push(el('tr', {}, el('td', { colspan: 6, class: 'muted' }, answer.query ? `No store matches “${answer.query}”.`
      : 'No store yet: waiting for an aggregator to publish its layouts (beaconnet/stores/+/layout) and counts.')));
  }
  byId('overview-table').tBodies[0].replaceChildren(...rows);
  pager(byId('overview-pager'), answer.page, answer.pages, (page) => { overview.query.page = page; overviewChanged(); });
  document.body.dataset.ready = 'true';
  document.body.dataset.overview = String(answer.stores.length);
}

function pager(nav, page, pages, go) {
  const previous = el('button', { type: 'button', 'data-role': 'previous' }, '‹ previous');
  const next = el('button', { type: 'button', 'data-role': 'next' }, 'next ›');
  previous.disabled = page <= 1;
  next.disabled = page >= pages;
  previous.addEventListener('click', () => go(page - 1));
  next.addEventListener('click', () => go(page + 1));
  nav.replaceChildren(previous, el('span', {}, `page ${page} of ${pages}`), next);
}

function overviewChanged() {
  const parameters = overviewParameters();
  history.replaceState(null, '', `/${parameters ? '?' + parameters : ''}`);
  loadOverview();
}

// A store's count changed: its row shows it at once; sorted by occupancy, the order follows shortly.
function overviewOccupancy(update) {
  if (overview.answer === null) return;
  if (update.minor === undefined || update.minor === null) {
    const line = overview.answer.stores.find((store) => store.major === update.major);
    if (line) {
      line.count = update.count;
      const cell = document.querySelector(`[data-role=overview-count][data-major="${update.major}"]`);
      if (cell) { cell.textContent = update.count; cell.title = countWords(update.count); }
    }
  }
  if (overview.query.sort === 'occupancy') scheduleOverview();
}

// ---- what is wrong (/health) ----

const problems = { page: 1, timer: null };

function scheduleProblems(delay = 2000) {
  if (problems.timer === null) problems.timer = setTimeout(loadProblems, delay);
}

async function loadProblems() {
  clearTimeout(problems.timer);
  problems.timer = null;
  let answer;
  try { answer = await getJSON(`/api/health/problems?per_page=100&page=${problems.page}`); } catch (e) { return; }
  const list = byId('problems-list');
  if (!answer.ok) {
    list.replaceChildren(el('li', { class: 'state-offline', 'data-status': answer.status }, errorMessage(answer)));
    return;
  }
  const a = answer.body, s = a.summary;
  setBroker(a.broker);
  showViewer(a.viewer);
  byId('problems-summary').textContent = `· ${a.problems} problem(s), ${a.warnings} warning(s) · stores ${s.ok} ok, ${s.warning} warning, ${s.problem} problem`
    + ` · aggregators ${a.aggregators_online} of ${a.aggregators} online · gateways ${a.gateways_offline} offline, ${a.gateways_unknown} unknown of ${a.gateways}`;
  const items = a.items.map((item) => el('li', { 'data-severity': item.severity, 'data-kind': item.kind },
    el('span', { class: `severity severity-${item.severity}` }, item.severity), ' ',
    item.kind === 'store' && item.stores ? el('a', { href: `/stores/${item.stores}` }, el('strong', {}, item.subject)) : el('strong', {}, item.subject),
    item.stores && item.kind !== 'store' ? el('span', { class: 'stores' }, ` stores ${item.stores}`) : null, ': ', item.detail));
  if (items.length === 0 && a.problems + a.warnings > 0) {
    problems.page = a.pages;
    loadProblems();
    return;
  }
  if (items.length === 0) items.push(el('li', { class: 'muted', 'data-severity': 'none' }, 'Nothing is wrong: every store is served and every gateway online.'));
  list.replaceChildren(...items);
  pager(byId('problems-pager'), a.page, a.pages, (page) => { problems.page = page; loadProblems(); });
  document.body.dataset.ready = 'true';
}

// ---- events ----

// A device id short enough for the feed: its kind and the end that tells devices apart
// (`ib-…A71096E0-1000-47` for `ib-E2C56DB5-DFFB-48D2-B060-D0F5A71096E0-1000-47`); the whole id
// is the element's title (on hover) and a click looks the device up.
function shortId(id) {
  if (id.length <= 24) return id;
  const kind = id.slice(0, id.indexOf('-') + 1);
  return `${kind}…${id.slice(-16)}`;
}

function deviceLink(id) {
  const link = el('button', { type: 'button', class: 'dev', title: id, 'data-dev': id }, shortId(id));
  link.addEventListener('click', () => { byId('device-id').value = id; lookUp(id); });
  return link;
}

// Newest first by event time (then sequence): aggregators and stores deliver out of that order.
function byEventTime(a, b) { return b.t - a.t || b.seq - a.seq; }

function renderEvents() {
  const list = byId('events');
  const shown = view.events.filter((e) => view.only === null || String(e.major) === String(view.only)).slice(0, 60);
  list.replaceChildren(...shown.map((e) => el('li', { 'data-kind': e.kind, 'data-t': e.t },
    el('span', { class: 'muted' }, clock(e.t)), ' ', el('span', { class: e.kind }, e.kind.toUpperCase()), ' ',
    `${e.store_name}${e.section_name ? ' › ' + e.section_name : ''} (${e.major}${e.minor !== undefined ? '/' + e.minor : ''}) `,
    deviceLink(e.dev))));
  if (shown.length === 0) list.append(el('li', { class: 'muted' }, 'No event yet.'));
}

async function loadEvents() {
  try { view.events = ((await getJSON('/api/events')).body || []).sort(byEventTime); } catch (e) { return; }
  renderEvents();
}

// ---- health and the broker ----

function setBroker(broker) {
  view.broker = broker;
  const pill = byId('link');
  pill.dataset.state = view.server === 'down' ? 'server-down' : broker.state;
  pill.textContent = view.server === 'down' ? 'dashboard unreachable' : `broker ${broker.state}`;
  showBanner();
}

function showBanner() {
  const banner = byId('banner');
  const broker = view.broker;
  let text = null, level = 'warning';
  if (view.server === 'down') {
    text = 'The dashboard server cannot be reached: retrying. What is shown is the last state received.';
    level = 'error';
  } else if (broker && broker.state === 'lost') {
    text = `The broker connection was lost at ${clock(broker.since)} (${broker.detail || 'no reason given'}): reconnecting. Counts shown are the last known.`;
  } else if (broker && broker.state === 'refused') {
    text = `The broker refused the dashboard: ${broker.detail || ''}. Check its user name, password file and CA.`;
    level = 'error';
  } else if (broker && broker.state === 'connecting') {
    text = `Connecting to the broker${broker.detail ? ' — last attempt: ' + broker.detail : '…'}`;
  }
  banner.hidden = text === null;
  banner.dataset.state = view.server === 'down' ? 'server-down' : broker ? broker.state : 'connecting';
  banner.dataset.level = level;
  banner.textContent = text || '';
}

// The health panel: the rows by id, kept up to date by the stream's changes (`health`), or
// fetched whole again (`health-reload`, or when the stream opens).
const health = { summary: null, now: 0, aggregators: new Map(), gateways: new Map() };

function renderHealth(full) {
  health.aggregators = new Map(full.aggregators.map((a) => [a.id, a]));
  health.gateways = new Map(full.gateways.map((g) => [g.id, g]));
  health.now = full.now;
  health.summary = full;
  drawHealth();
}

function applyHealthChanges(changes) {
  for (const a of changes.aggregators) health.aggregators.set(a.id, a);
  // The panel holds the gateways not online (a chain has tens of thousands): one back online leaves it.
  for (const g of changes.gateways) { if (g.state === 'online') health.gateways.delete(g.id); else health.gateways.set(g.id, g); }
  for (const id of changes.removed_aggregators) health.aggregators.delete(id);
  for (const id of changes.removed_gateways) health.gateways.delete(id);
  health.now = changes.now;
  health.summary = changes.summary;
  drawHealth();
}

function drawHealth() {
  const summary = health.summary;
  setBroker(summary.broker);
  const aggregators = [...health.aggregators.values()].sort((a, b) => a.id.localeCompare(b.id)).map((a) => el('tr', {},
    el('td', { class: 'mono', title: a.standby_for ? `standby for ${a.standby_for}` : '' }, a.standby_for ? `${a.id} (for ${a.standby_for})` : a.id),
    el('td', { class: `state-${a.state}` }, a.state),
    el('td', { class: 'num' }, age(Math.max(0, health.now - a.status_time))), el('td', { class: 'num' }, a.lag_ms === undefined ? '–' : `${a.lag_ms} ms`),
    el('td', { class: 'num' }, a.lost_batches), el('td', { class: 'num' }, a.offline_gateways)));
  const gatewayList = [...health.gateways.values()].sort((a, b) => a.id.localeCompare(b.id));
  const down = gatewayList.length;
  const listed = gatewayList.slice(0, 100);
  const gateways = listed.map((g) => el('tr', { title: g.detail },
    el('td', { class: 'mono' }, g.id), el('td', {}, g.major === undefined ? '–' : `${g.major}/${g.minor}`),
    el('td', { class: `state-${g.state}` }, g.state), el('td', { class: 'num' }, g.lost_batches)));
  if (listed.length < gatewayList.length) {
    gateways.push(el('tr', {}, el('td', { colspan: 4, class: 'muted' }, `${listed.length} of ${gatewayList.length} listed: `, el('a', { href: '/health' }, 'every problem'))));
  }
  const panel = [
    el('table', {}, el('thead', {}, el('tr', {}, el('th', {}, 'aggregator'), el('th', {}, 'state'), el('th', { class: 'num', title: 'age of its last status' }, 'age'),
      el('th', { class: 'num' }, 'lag'), el('th', { class: 'num' }, 'lost'), el('th', { class: 'num', title: 'gateways it counts offline' }, 'gw off'))),
    el('tbody', {}, ...(aggregators.length ? aggregators : [el('tr', {}, el('td', { colspan: 6, class: 'muted' }, 'No aggregator status yet.'))]))),
    el('details', {}, el('summary', {}, down === 0 ? 'every gateway online' : `${down} gateway(s) not online`),
      el('table', {}, el('thead', {}, el('tr', {}, el('th', {}, 'gateway'), el('th', {}, 'section'), el('th', {}, 'state'),
        el('th', { class: 'num' }, 'lost'))), el('tbody', {}, ...gateways))),
  ];
  if (summary.undecodable > 0) panel.push(el('p', { class: 'state-stale' }, `${summary.undecodable} unreadable message(s)${summary.last_problem ? '; last: ' + summary.last_problem : ''}`));
  const dropped = summary.gateway_statuses_dropped + summary.aggregator_statuses_dropped;
  if (dropped > 0) panel.push(el('p', { class: 'state-stale' }, `${dropped} status(es) not kept: more gateways or aggregators than the dashboard holds`));
  byId('health').replaceChildren(...panel);
}

async function loadHealth() {
  try { renderHealth((await getJSON('/api/health?gateways=not-online')).body); } catch (e) { /* the stream's error shows the banner */ }
}

function showViewer(viewer) {
  const who = byId('viewer');
  if (!viewer || !viewer.user) { who.hidden = true; return; }
  who.hidden = false;
  byId('viewer-name').textContent = viewer.stores === 'all' ? viewer.user : `${viewer.user} · stores ${viewer.stores}`;
}

// ---- device look-up ----

async function lookUp(id) {
  view.device = id;
  const out = byId('device');
  let answer;
  try { answer = await getJSON(`/api/devices/${encodeURIComponent(id)}`); } catch (e) { out.textContent = 'The dashboard server cannot be reached.'; return; }
  if (!answer.ok) {
    out.replaceChildren(el('p', { class: 'state-offline', 'data-status': answer.status }, errorMessage(answer)));
    return;
  }
  const d = answer.body;
  const where = d.store_name ? `${d.store_name}${d.section_name ? ' › ' + d.section_name : ''} (${d.major}${d.minor !== undefined ? '/' + d.minor : ''})` : '–';
  out.replaceChildren(el('dl', { 'data-state': d.state },
    el('dt', {}, 'state'), el('dd', { class: `state-${d.state === 'inside' ? 'online' : d.state}` }, d.state),
    el('dt', {}, d.state === 'outside' ? 'left' : 'where'), el('dd', {}, where),
    el('dt', {}, 'since'), el('dd', {}, clock(d.since)),
    el('dt', {}, 'last seen'), el('dd', {}, clock(d.last_seen)),
    el('dt', {}, 'proximity'), el('dd', {}, `${d.proximity}${d.accuracy !== undefined ? ' (' + d.accuracy + ' m)' : ''}`),
    el('dt', {}, 'confidence'), el('dd', {}, d.confidence)));
}

// ---- the live stream ----

function counted(handler) {
  return (message) => {
    document.body.dataset.updates = String(Number(document.body.dataset.updates) + 1);
    handler(JSON.parse(message.data));
  };
}

function connect() {
  const stream = new EventSource('/api/stream');
  stream.addEventListener('open', () => {
    view.server = 'up';
    if (view.mode === 'chain') loadOverview();
    else if (view.mode === 'health') loadProblems();
    else loadStores();
    loadEvents();
    loadHealth();
  });
  stream.addEventListener('error', () => {
    view.server = 'down';
    if (view.broker) setBroker(view.broker); else showBanner();
    // A stream refused for want of a session: getJSON sends the browser to the login.
    getJSON('/api/health').catch(() => {});
  });
  stream.addEventListener('occupancy', counted(applyOccupancy));
  stream.addEventListener('region', counted((event) => {
    view.events.push(event);
    view.events.sort(byEventTime);
    view.events.length = Math.min(view.events.length, 200);
    renderEvents();
    if (view.device === event.dev) lookUp(event.dev);
  }));
  stream.addEventListener('layout', counted(() => {
    if (view.mode === 'chain') scheduleOverview(1000);
    else if (view.mode === 'store') loadStores();
  }));
  stream.addEventListener('health', counted((changes) => { applyHealthChanges(changes); healthMoved(); }));
  stream.addEventListener('health-reload', counted(() => { loadHealth(); healthMoved(); }));
  stream.addEventListener('broker', counted(setBroker));
}

byId('lookup').addEventListener('submit', (e) => {
  e.preventDefault();
  const id = byId('device-id').value.trim();
  if (id) lookUp(id);
});
// Statuses changed: the overview's health column and the health page follow.
function healthMoved() {
  if (view.mode === 'chain') scheduleOverview();
  if (view.mode === 'health') scheduleProblems();
}

const route = location.pathname.match(/^\/stores\/([^/]+)\/?$/);
if (route) {
  view.mode = 'store';
  view.only = decodeURIComponent(route[1]);
} else if (location.pathname === '/health') {
  view.mode = 'health';
  byId('problems').hidden = false;
  byId('stores').hidden = true;
} else {
  byId('overview').hidden = false;
  byId('stores').replaceChildren();
  readOverviewQuery();
  // What the form says, from its first page: the search box as it reads now, whichever field changed.
  const fromForm = () => {
    overview.query = { q: byId('overview-search').value.trim(), sort: byId('overview-sort').value, page: 1, per_page: Number(byId('overview-per-page').value) };
    overviewChanged();
  };
  byId('overview-form').addEventListener('submit', (e) => { e.preventDefault(); fromForm(); });
  for (const id of ['overview-search', 'overview-sort', 'overview-per-page']) byId(id).addEventListener('change', fromForm);
}
connect();
