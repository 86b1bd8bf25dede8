// The API the page sits under (the viewer is at /<prefix>/viewer/), with the key kept for this tab only.
const KEY = 'agent-store-viewer-key';
const BASE = new URL('../', location.href);

export class ApiError extends Error {
  /** `keySent`: the request carried a key, so a 401 refused that key rather than asked for one. */
  constructor(status, message, keySent = false) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.keySent = keySent;
  }
}

export const getKey = () => sessionStorage.getItem(KEY);
export const setKey = (key) => sessionStorage.setItem(KEY, key);
export const forgetKey = () => sessionStorage.removeItem(KEY);

/** Without a key the request goes out bare: the host's own guard may authenticate it (a cookie, a proxy). */
const headers = (key) => (key ? { Authorization: `Bearer ${key}` } : {});

function url(path, query = {}) {
  const target = new URL(path, BASE);
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined && value !== null && value !== '') target.searchParams.set(name, String(value));
  }
  return target;
}

async function request(path, query) {
  const key = getKey();
  let response;
  try {
    response = await fetch(url(path, query), { headers: headers(key), credentials: 'same-origin' });
  } catch (error) {
    throw new ApiError(0, `the API did not answer (${error.message})`);
  }
  if (response.ok) return response;
  let message = response.statusText;
  try {
    const body = await response.json();
    message = Array.isArray(body.message) ? body.message.join('; ') : String(body.message ?? message);
  } catch {
    // Not JSON: keep the status text.
  }
  throw new ApiError(response.status, message, Boolean(key));
}

export const getJson = async (path, query) => (await request(path, query)).json();

export const getBlob = async (path, query) => (await request(path, query)).blob();

/**
 * A session's path under the API. "." and ".." are valid ids, but a URL's path
 * resolves them away (encoded as %2E too), so such a session cannot be asked
 * for by URL: refused here rather than let another route answer for it.
 */
export function sessionPath(id, rest = '') {
  if (id === '.' || id === '..')
    throw new ApiError(
      0,
      `session "${id}" cannot be read in a browser: a URL resolves "${id}" away as a path segment. Read it with the store (e.g. SessionStore.exportJsonl).`,
    );
  return `sessions/${encodeURIComponent(id)}${rest}`;
}
