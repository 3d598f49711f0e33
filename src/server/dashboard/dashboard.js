// gridtail's dashboard: the site matrix, a map from the sites' coordinates,
// a pair's tail and history with its tracked forecast error, and a
// placement form, all from the server's own API (no library, no CDN).
'use strict';

const state = { sites: [], metric: 'median', chosen: null };
const $ = (id) => document.getElementById(id);
const SVGNS = 'http://www.w3.org/2000/svg';

function showError(where, err) {
  $(where).textContent = err ? String(err.message || err) : '';
}

async function getJSON(url, options) {
  const r = await fetch(url, options);
  const body = await r.json().catch(() => ({}));
  if (!r.ok) throw new Error(body.error || (r.status + ' ' + r.statusText));
  return body;
}

function postJSON(url, doc) {
  return getJSON(url, { method: 'POST', headers: { 'Content-Type': 'application/json' },
                        body: JSON.stringify(doc) });
}

// an SVG of /v1/plot/..., parsed and made part of the page
async function getSVG(url) {
  const r = await fetch(url);
  const text = await r.text();
  if (!r.ok) {
    let msg = r.status + ' ' + r.statusText;
    try { msg = JSON.parse(text).error; } catch (e) { /* not JSON */ }
    throw new Error(msg);
  }
  const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
  return document.importNode(doc.documentElement, true);
}

function query(params) {
  return Object.entries(params).filter(([, v]) => v !== undefined && v !== '')
    .map(([k, v]) => encodeURIComponent(k) + '=' + encodeURIComponent(v)).join('&');
}

function ago(seconds) {
  if (seconds < 120) return Math.round(seconds) + ' s';
  if (seconds < 7200) return Math.round(seconds / 60) + ' min';
  if (seconds < 172800) return Math.round(seconds / 3600) + ' h';
  return Math.round(seconds / 86400) + ' days';
}

async function freshness() {
  const el = $('fresh');
  try {
    const r = await fetch('/readyz');
    const doc = await r.json();
    if (r.ok) {
      const age = doc.newest_sample_age_s;
      el.textContent = age === null ? 'no samples yet' : 'newest sample ' + ago(age) + ' ago';
      el.classList.toggle('stale', age === null || age > 3600);
    } else {
      el.textContent = doc.error;
      el.classList.add('stale');
    }
  } catch (e) {
    el.textContent = 'the server does not answer';
    el.classList.add('stale');
  }
}

// ---------------------------------------------------------------- matrix

async function loadMatrix() {
  const hl = state.chosen ? [state.chosen.root].concat(state.chosen.sites).join(',') : '';
  try {
    const svg = await getSVG('/v1/plot/matrix?' + query({ metric: state.metric, highlight: hl }));
    $('matrix').replaceChildren(svg);
    showError('matrix-error', null);
  } catch (e) {
    showError('matrix-error', e);
  }
}

function matrixClick(ev) {
  const cell = ev.target.closest('rect[data-src]');
  if (!cell) return;
  $('src').value = cell.dataset.src;
  $('dst').value = cell.dataset.dst;
  loadPair();
}

// ---------------------------------------------------------------- map

function el(name, attrs, text) {
  const e = document.createElementNS(SVGNS, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

// equirectangular, over the sites' own extent (with a margin)
function drawMap() {
  const placed = state.sites.filter((s) => typeof s.latitude === 'number');
  const W = 760, H = 380, pad = 20;
  const svg = el('svg', { viewBox: '0 0 ' + W + ' ' + H, width: W, height: H, role: 'img',
                          'aria-label': 'map of the sites' });
  if (!placed.length) {
    svg.appendChild(el('text', { x: 20, y: 40 }, 'no site has coordinates (gridtail sites --import)'));
    $('map').replaceChildren(svg);
    return;
  }
  let lon0 = Math.min(...placed.map((s) => s.longitude)) - 10;
  let lon1 = Math.max(...placed.map((s) => s.longitude)) + 10;
  let lat0 = Math.max(-90, Math.min(...placed.map((s) => s.latitude)) - 10);
  let lat1 = Math.min(90, Math.max(...placed.map((s) => s.latitude)) + 10);
  const k = Math.min((W - 2 * pad) / (lon1 - lon0), (H - 2 * pad) / (lat1 - lat0));
  const x = (lon) => pad + (lon - lon0) * k;
  const y = (lat) => H - pad - (lat - lat0) * k;
  svg.appendChild(el('rect', { class: 'land', x: x(lon0), y: y(lat1), width: (lon1 - lon0) * k,
                               height: (lat1 - lat0) * k }));
  for (let g = Math.ceil(lon0 / 30) * 30; g <= lon1; g += 30)
    svg.appendChild(el('path', { class: 'graticule', d: 'M' + x(g) + ' ' + y(lat0) + 'V' + y(lat1) }));
  for (let g = Math.ceil(lat0 / 30) * 30; g <= lat1; g += 30)
    svg.appendChild(el('path', { class: 'graticule', d: 'M' + x(lon0) + ' ' + y(g) + 'H' + x(lon1) }));
  const at = Object.fromEntries(placed.map((s) => [s.name, s]));
  const chosen = state.chosen;
  if (chosen && at[chosen.root]) {
    const r = at[chosen.root];
    for (const name of chosen.sites) {
      if (!at[name]) continue;
      svg.appendChild(el('path', { class: 'link', 'data-to': name,
                                   d: 'M' + x(r.longitude) + ' ' + y(r.latitude) + 'L' +
                                      x(at[name].longitude) + ' ' + y(at[name].latitude) }));
    }
  }
  for (const s of placed) {
    const isRoot = chosen && chosen.root === s.name;
    const isChosen = chosen && (isRoot || chosen.sites.includes(s.name));
    const dot = el('circle', { class: 'site' + (isChosen ? ' chosen' : '') + (isRoot ? ' root' : ''),
                               cx: x(s.longitude), cy: y(s.latitude), r: isChosen ? 5 : 3.5,
                               'data-site': s.name });
    dot.appendChild(el('title', {}, s.name + (s.cluster ? ' (' + s.cluster + ')' : '')));
    svg.appendChild(dot);
    svg.appendChild(el('text', { class: isChosen ? 'chosen' : '', x: x(s.longitude) + 5,
                                 y: y(s.latitude) - 4 }, s.name));
  }
  $('map').replaceChildren(svg);
}

// ---------------------------------------------------------------- pair

function fmt(v, digits) {
  return typeof v === 'number' ? v.toFixed(digits === undefined ? 2 : digits) : '–';
}

async function tracked(src, dst) {
  const box = $('tracked');
  box.textContent = '';
  const est = await postJSON('/v1/estimate', { root: src, sites: [dst], model: 'adaptive' });
  const a = est.adaptive;
  const p = document.createElement('p');
  p.textContent = 'E[max] ' + fmt(est.e_max) + ' ms; ';
  if (!a || !a.rmse_by_method) {
    p.textContent += 'no forecast error tracked yet' +
      (est.warnings && est.warnings.length ? ': ' + est.warnings[0] : '');
    box.appendChild(p);
    return;
  }
  p.textContent += 'tracked forecast error over the last ' + a.outcomes + ' outcomes, ' +
    a.horizon_s + ' s ahead: ' + a.chosen + ' predicts best (RMSE ' + fmt(a.rmse_ms) + ' ms)';
  box.appendChild(p);
  const t = document.createElement('table');
  t.id = 'tracked-table';
  t.innerHTML = '<tr><th>method</th><th>RMSE (ms)</th></tr>';
  for (const [m, v] of Object.entries(a.rmse_by_method)) {
    const row = t.insertRow();
    row.insertCell().textContent = m + (m === a.chosen ? ' (chosen)' : '');
    const c = row.insertCell();
    c.className = 'num';
    c.textContent = fmt(v);
  }
  box.appendChild(t);
}

async function loadPair() {
  const src = $('src').value, dst = $('dst').value;
  showError('pair-error', null);
  if (!src || !dst || src === dst) {
    showError('pair-error', 'choose two different sites');
    return;
  }
  try {
    const [ccdf, series] = await Promise.all([
      getSVG('/v1/plot/ccdf?' + query({ src, dst })),
      getSVG('/v1/plot/series?' + query({ src, dst }))]);
    $('ccdf').replaceChildren(ccdf);
    $('series').replaceChildren(series);
    await tracked(src, dst);
  } catch (e) {
    showError('pair-error', e);
  }
}

// ---------------------------------------------------------------- placement

function poolSites() {
  return Array.from($('pool').querySelectorAll('input:checked')).map((i) => i.value);
}

function showPlacement(doc) {
  const t = $('place-result');
  t.innerHTML = '<tr><th>root</th><th>partner sites</th><th>E[max] (ms)</th><th>p99 (ms)</th></tr>';
  for (const c of doc.candidates) {
    const row = t.insertRow();
    row.insertCell().textContent = c.root;
    row.insertCell().textContent = c.sites.join(', ');
    for (const v of [c.e_max, c.quantiles && c.quantiles.p99]) {
      const cell = row.insertCell();
      cell.className = 'num';
      cell.textContent = fmt(v);
    }
  }
  const cap = t.createCaption();
  cap.textContent = 'search ' + doc.search + ', ' + doc.evaluated + ' sets estimated' +
    (doc.excluded && doc.excluded.length ? '; left out: ' + doc.excluded.join('; ') : '');
}

async function place(ev) {
  ev.preventDefault();
  showError('place-error', null);
  const req = { pool: poolSites(), size: Number($('size').value), root: $('root').value,
                objective: $('objective').value };
  try {
    const doc = await postJSON('/v1/place', req);
    showPlacement(doc);
    state.chosen = doc.candidates.length ? doc.candidates[0] : null;
    drawMap();
    await loadMatrix();
  } catch (e) {
    showError('place-error', e);
  }
}

// ---------------------------------------------------------------- start

function fillSites() {
  const names = state.sites.filter((s) => s.pairs_out + s.pairs_in > 0).map((s) => s.name);
  for (const id of ['src', 'dst', 'root']) {
    for (const n of names) {
      const o = document.createElement('option');
      o.value = o.textContent = n;
      $(id).appendChild(o);
    }
  }
  if (names.length > 1) $('dst').value = names[1];
  const pool = $('pool');
  for (const n of names) {
    const label = document.createElement('label');
    const box = document.createElement('input');
    box.type = 'checkbox';
    box.value = n;
    box.checked = true;
    label.append(box, ' ' + n);
    pool.appendChild(label);
  }
}

async function start() {
  $('metric').addEventListener('change', () => { state.metric = $('metric').value; loadMatrix(); });
  $('matrix').addEventListener('click', matrixClick);
  $('pair-form').addEventListener('submit', (ev) => { ev.preventDefault(); loadPair(); });
  $('place-form').addEventListener('submit', place);
  $('pool-all').addEventListener('click', () => {
    for (const b of $('pool').querySelectorAll('input')) b.checked = true;
  });
  $('pool-none').addEventListener('click', () => {
    for (const b of $('pool').querySelectorAll('input')) b.checked = false;
  });
  freshness();
  setInterval(freshness, 60000);
  try {
    state.sites = (await getJSON('/v1/sites')).sites;
  } catch (e) {
    showError('matrix-error', e);
    return;
  }
  fillSites();
  drawMap();
  await loadMatrix();
  // first render done: the browser test waits for it and reads the time
  document.body.dataset.readyMs = String(Math.round(performance.now()));
  document.body.dataset.ready = 'yes';
}

start();
