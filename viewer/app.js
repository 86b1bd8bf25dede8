// The viewer's entry: the key form, the error banner and the hash routes
// (#/ the sessions list, #/session/<id> one session), so reload and back work.
import { ApiError, forgetKey, getKey, setKey } from './api.js';
import { replace } from './dom.js';
import { renderSession } from './session.js';
import { renderSessions } from './sessions.js';

const main = document.getElementById('main');
const errorBanner = document.getElementById('error');
const keyForm = document.getElementById('key-form');
const keyInput = document.getElementById('key-input');
const keyState = document.getElementById('key-state');

/** Shown for every failed call; a 401 also asks for a key. */
function showError(error) {
  const status = error instanceof ApiError && error.status ? `${error.status}: ` : '';
  replace(errorBanner, `${status}${error.message}`);
  errorBanner.hidden = false;
  if (error instanceof ApiError && error.status === 401) showKeyForm(true);
}

function showKeyForm(visible) {
  keyForm.hidden = !visible;
  keyState.hidden = visible || !getKey();
  if (visible) keyInput.focus();
}

keyForm.addEventListener('submit', (event) => {
  event.preventDefault();
  setKey(keyInput.value.trim());
  keyInput.value = '';
  showKeyForm(false);
  route();
});

document.getElementById('key-forget').addEventListener('click', () => {
  forgetKey();
  showKeyForm(true);
  replace(main);
});

// A navigation supersedes the one before it: each route renders into a view of
// its own, so a late answer for an old route lands in a detached element.
let generation = 0;

async function route() {
  const token = ++generation;
  errorBanner.hidden = true;
  const [path, search = ''] = location.hash.slice(1).split('?');
  const query = new URLSearchParams(search);
  const view = document.createElement('div');
  main.replaceChildren(view);
  const context = { main: view, query, showError };
  try {
    const session = /^\/session\/(.+)$/.exec(path);
    if (session) await renderSession(context, decodeURIComponent(session[1]));
    else await renderSessions(context);
  } catch (error) {
    if (token === generation) showError(error);
  }
}

// The form shows on a 401 only: behind a host's own authentication no key is needed.
showKeyForm(false);
window.addEventListener('hashchange', route);
route();
