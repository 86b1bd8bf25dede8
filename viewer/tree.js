// The subsession tree around a session: up its parents to the root, then down
// through /subsessions, children loaded when a node is opened.
import { ApiError, getJson, sessionPath } from './api.js';
import { h, link, replace, sessionRoute } from './dom.js';

// A parent chain longer than this is shown from the highest ancestor read.
const MAX_DEPTH = 20;

export async function subsessionTree(container, meta) {
  const path = [meta.id];
  let parentId = meta.parentId;
  while (parentId && path.length < MAX_DEPTH && !path.includes(parentId)) {
    path.unshift(parentId);
    try {
      parentId = (await getJson(sessionPath(parentId))).parentId;
    } catch (error) {
      if (!(error instanceof ApiError) || error.status !== 404) throw error;
      parentId = null;
    }
  }
  const root = h('ul', { class: 'tree-root' });
  replace(container, h('h2', {}, 'Subsession tree'), root);
  await node(root, path[0], meta.id, path.slice(1));
}

/** A node; the nodes on the way to the current session are opened, the others on demand. */
async function node(list, id, currentId, openPath) {
  const children = h('ul', { hidden: true });
  const toggle = h('button', { type: 'button', class: 'toggle', 'aria-expanded': 'false', 'data-testid': 'tree-toggle', title: 'subsessions' }, '▸');
  const item = h(
    'li',
    { 'data-testid': 'tree-node', dataset: { sessionId: id }, class: id === currentId ? 'current' : null, 'aria-current': id === currentId ? 'page' : null },
    toggle,
    link(sessionRoute(id), id, { class: 'tree-link' }),
    children,
  );
  list.append(item);
  let loaded = false;
  const open = async () => {
    if (!loaded) {
      loaded = true;
      const { subsessions } = await getJson(sessionPath(id, '/subsessions'));
      if (subsessions.length === 0) {
        toggle.disabled = true;
        toggle.textContent = '·';
        return;
      }
      for (const child of subsessions) await node(children, child, currentId, child === openPath[0] ? openPath.slice(1) : null);
    }
    children.hidden = !children.hidden;
    toggle.textContent = children.hidden ? '▸' : '▾';
    toggle.setAttribute('aria-expanded', String(!children.hidden));
  };
  toggle.addEventListener('click', () =>
    open().catch((error) => {
      loaded = false;
      children.hidden = false;
      replace(children, h('li', { class: 'error', role: 'alert' }, error.message));
    }),
  );
  // Open the path to the current session, and the current session's own children.
  if (openPath) await open();
}
