// #/ : the tenant's sessions, newest first, searched by id or title, paged with a stack of cursors;
// on a page, a subsession comes under its parent.
import { getJson } from './api.js';
import { date, h, link, replace, sessionRoute } from './dom.js';

const PAGE = 20;

export async function renderSessions({ main, query, showError }) {
  const search = query.get('search') ?? '';
  const input = h('input', { type: 'search', name: 'search', value: search, placeholder: 'id or title contains…', 'data-testid': 'search-input' });
  const form = h(
    'form',
    {
      class: 'search',
      role: 'search',
      onsubmit: (event) => {
        event.preventDefault();
        const text = input.value.trim();
        const target = text ? `#/?search=${encodeURIComponent(text)}` : '#/';
        // The same search again reloads it (no hashchange would).
        if (location.hash === target) window.dispatchEvent(new HashChangeEvent('hashchange'));
        else location.hash = target;
      },
    },
    input,
    h('button', { type: 'submit', 'data-testid': 'search-button' }, 'Search'),
  );
  const list = h('ul', { class: 'sessions', 'data-testid': 'session-list' });
  const status = h('p', { class: 'muted', 'data-testid': 'session-status' });
  const previous = h('button', { type: 'button', 'data-testid': 'sessions-previous', disabled: true }, 'Previous');
  const next = h('button', { type: 'button', 'data-testid': 'sessions-next', disabled: true }, 'Next');
  replace(main, h('section', {}, h('h1', {}, 'Sessions'), form, status, list, h('nav', { class: 'pager' }, previous, next)));

  // cursors[i] opened page i; the first page has none.
  const cursors = [null];
  const load = async () => {
    const cursor = cursors.at(-1);
    const page = await getJson('sessions', { limit: PAGE, search, cursor });
    replace(
      list,
      nestUnderParents(page.sessions).map(({ session, depth }) => sessionItem(session, depth)),
    );
    status.textContent = page.sessions.length === 0 ? (search ? `No session matches "${search}".` : 'No sessions.') : `Page ${cursors.length}`;
    previous.disabled = cursors.length === 1;
    next.disabled = !page.nextCursor;
    next.onclick = () => turn(() => cursors.push(page.nextCursor));
  };
  // The buttons are off while a page loads: a double click turns one page, not two.
  const turn = (move) => {
    previous.disabled = next.disabled = true;
    move();
    load().catch((error) => {
      previous.disabled = cursors.length === 1;
      showError(error);
    });
  };
  previous.onclick = () => turn(() => cursors.pop());
  await load();
}

/**
 * The page's sessions in their order, but each subsession right after its parent
 * (and its parent's other subsessions) when the parent is on the page, one level
 * deeper; the others keep their place at depth 0.
 */
function nestUnderParents(sessions) {
  const onPage = new Set(sessions.map((session) => session.id));
  const nested = (session) => session.parentId != null && onPage.has(session.parentId);
  const children = new Map();
  for (const session of sessions.filter(nested)) {
    if (children.has(session.parentId)) children.get(session.parentId).push(session);
    else children.set(session.parentId, [session]);
  }
  const rows = [];
  const placed = new Set();
  const place = (session, depth) => {
    if (placed.has(session.id)) return;
    placed.add(session.id);
    rows.push({ session, depth });
    for (const child of children.get(session.id) ?? []) place(child, depth + 1);
  };
  for (const session of sessions) if (!nested(session)) place(session, 0);
  // A cycle of parents, which the store does not make, still shows every session.
  for (const session of sessions) place(session, 0);
  return rows;
}

function sessionItem(session, depth) {
  const item = h(
    'li',
    { 'data-testid': 'session-item', dataset: { sessionId: session.id, depth }, class: depth ? 'nested' : null },
    depth ? h('span', { class: 'nest', 'aria-hidden': 'true' }, '↳') : null,
    link(sessionRoute(session.id), session.id, { class: 'session-link' }),
    session.title ? h('span', { class: 'title' }, session.title) : null,
    // Under its parent, the place says it.
    session.parentId && !depth ? h('span', { class: 'badge', 'data-testid': 'badge-subsession' }, 'subsession of ', session.parentId) : null,
    session.forkedFrom
      ? h('span', { class: 'badge', 'data-testid': 'badge-fork' }, `fork of ${session.forkedFrom.sessionId} at seq ${session.forkedFrom.seq}`)
      : null,
    h('span', { class: 'muted' }, 'updated ', date(session.updatedAt)),
  );
  // A property, not a style attribute: the CSP allows no inline styles.
  item.style.setProperty('--depth', String(depth));
  return item;
}
