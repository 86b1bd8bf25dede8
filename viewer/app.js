// The viewer's entry: the key prompt, the error banner and the hash routes
// (#/ the sessions list, #/session/<id> one session), so reload and back work.
import { ApiError, forgetKey, getKey, setKey } from './api.js';
import { replace } from './dom.js';
import { renderSession } from './session.js';
import { renderSessions } from './sessions.js';

const main = document.getElementById('main');
const errorBanner = document.getElementById('error');
const keyPrompt = document.getElementById('key-prompt');
const keyRefused = document.getElementById('key-refused');
const keyForm = document.getElementById('key-form');
const keyInput = document.getElementById('key-input');
const keyState = document.getElementById('key-state');

/** Shown for every failed call, but a 401: that one asks for a key. */
function showError(error) {
  if (error instanceof ApiError && error.status === 401) {
    askForKey(error);
    return;
  }
  const status = error instanceof ApiError && error.status ? `${error.status}: ` : '';
  replace(errorBanner, `${status}${error.message}`);
  errorBanner.hidden = false;
}

/** The key prompt in place of the page; `refusal`, the 401, says whether a key was sent and refused. */
function askForKey(refusal) {
  const refused = refusal.keySent;
  // A refused key would only be refused again.
  if (refused) forgetKey();
  replace(keyRefused, refused ? `That key was not accepted (the API answered: ${refusal.message}). Check it, or enter another.` : '');
  keyRefused.hidden = !refused;
  errorBanner.hidden = true;
  main.replaceChildren();
  main.hidden = true;
  keyPrompt.hidden = false;
  keyState.hidden = true;
  keyInput.focus();
}

keyForm.addEventListener('submit', (event) => {
  event.preventDefault();
  setKey(keyInput.value.trim());
  keyInput.value = '';
  route();
});

// Without the key the page may still work: behind a host's own guard it needs none.
document.getElementById('key-forget').addEventListener('click', () => {
  forgetKey();
  route();
});

// A navigation supersedes the one before it: each route renders into a view of
// its own, so a late answer for an old route lands in a detached element.
let generation = 0;

async function route() {
  const token = ++generation;
  errorBanner.hidden = true;
  keyPrompt.hidden = true;
  main.hidden = false;
  keyState.hidden = !getKey();
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

// The prompt shows on a 401 only: behind a host's own authentication no key is needed.
window.addEventListener('hashchange', route);
route();
