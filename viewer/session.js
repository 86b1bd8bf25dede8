// #/session/<id>: the header, the export, the subsession tree, and the
// effective history beside the log.
import { ApiError, getBlob, getJson, sessionPath } from './api.js';
import { date, h, json, lazyDetails, link, replace, sessionRoute } from './dom.js';
import { historyPane, logPane } from './panes.js';
import { subsessionTree } from './tree.js';

export async function renderSession(context, id) {
  const { main, query } = context;
  let meta;
  try {
    meta = await getJson(sessionPath(id));
  } catch (error) {
    // Another tenant's session is a 404 too, exactly like a missing one.
    if (!(error instanceof ApiError) || error.status !== 404) throw error;
    replace(
      main,
      h(
        'section',
        { 'data-testid': 'not-found' },
        h('h1', {}, 'Session not found'),
        h('p', {}, `No session "${id}" for this key. `, link('/', 'All sessions')),
      ),
    );
    return;
  }
  const forks = h('span', { 'data-testid': 'forks' });
  const tree = h('nav', { class: 'tree', 'data-testid': 'tree', 'aria-label': 'Subsession tree' }, 'Loading the tree…');
  const history = h('section', { class: 'pane', 'data-testid': 'history-pane' });
  const log = h('section', { class: 'pane', 'data-testid': 'log-pane' });
  replace(
    main,
    h(
      'section',
      { class: 'header', 'data-testid': 'session-header' },
      h('p', {}, link('/', '← All sessions')),
      h(
        'h1',
        {},
        h('span', { 'data-testid': 'session-id' }, meta.id),
        meta.title ? h('span', { class: 'title', 'data-testid': 'session-title' }, meta.title) : null,
      ),
      h(
        'dl',
        { class: 'facts' },
        fact('created', date(meta.createdAt)),
        fact('updated', date(meta.updatedAt)),
        meta.parentId ? fact('parent', link(sessionRoute(meta.parentId), meta.parentId, { 'data-testid': 'parent-link' })) : null,
        meta.forkedFrom
          ? fact(
              'forked from',
              link(sessionRoute(meta.forkedFrom.sessionId, `?seq=${meta.forkedFrom.seq}`), meta.forkedFrom.sessionId, { 'data-testid': 'forked-from-link' }),
              ` at seq ${meta.forkedFrom.seq}`,
            )
          : null,
        fact('forks', forks),
      ),
      lazyDetails('metadata', () => json(meta.metadata), { 'data-testid': 'session-metadata' }),
      h('button', { type: 'button', 'data-testid': 'export', onclick: () => exportJsonl(meta.id).catch(context.showError) }, 'Export JSONL'),
    ),
    tree,
    h('div', { class: 'panes' }, history, log),
  );
  const seq = Number(query.get('seq'));
  await Promise.all([
    forksOf(meta.id).then((list) => replace(forks, list.length ? list.map((fork, i) => [i ? ', ' : '', link(sessionRoute(fork.id), fork.id)]) : 'none')),
    subsessionTree(tree, meta),
    // The log dims what the latest boundary cut away, so it waits for the history's first page.
    historyPane(history, meta.id)
      .catch((error) => {
        // The log is still worth reading without the history (it is only dimmed less).
        replace(history, h('h2', {}, 'Effective history'), h('p', { class: 'error', role: 'alert' }, error.message));
        return null;
      })
      .then((boundary) => logPane(log, meta.id, boundary, Number.isSafeInteger(seq) && seq > 0 ? seq : null)),
  ]);
}

const fact = (name, ...value) => [h('dt', {}, name), h('dd', {}, ...value)];

/** Forks, newest first; only the first page: a session rarely has more. */
async function forksOf(id) {
  return (await getJson('sessions', { forkedFrom: id, limit: 50 })).sessions;
}

/** Fetched with the key (a plain link could not send it), then saved from a blob. */
async function exportJsonl(id) {
  const blob = await getBlob(sessionPath(id, '/export'));
  const href = URL.createObjectURL(blob);
  const anchor = h('a', { href, download: `${id.replace(/[^A-Za-z0-9._-]+/g, '_')}.jsonl` });
  document.body.append(anchor);
  anchor.click();
  anchor.remove();
  setTimeout(() => URL.revokeObjectURL(href), 60_000);
}
