// The API the page sits under (the viewer is at /<prefix>/viewer/), with the key kept for this tab only.
const KEY = 'agent-store-viewer-key';
const BASE = new URL('../', location.href);

export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
  }
}

export const getKey = () => sessionStorage.getItem(KEY);
export const setKey = (key) => sessionStorage.setItem(KEY, key);
export const forgetKey = () => sessionStorage.removeItem(KEY);

/** Without a key the request goes out bare: the host's own guard may authenticate it (a cookie, a proxy). */
function headers() {
  const key = getKey();
  return key ? { Authorization: `Bearer ${key}` } : {};
}

function url(path, query = {}) {
  const target = new URL(path, BASE);
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined && value !== null && value !== '') target.searchParams.set(name, String(value));
  }
  return target;
}

async function request(path, query) {
  let response;
  try {
    response = await fetch(url(path, query), { headers: headers(), credentials: 'same-origin' });
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
  throw new ApiError(response.status, message);
}

export const getJson = async (path, query) => (await request(path, query)).json();

export const getBlob = async (path, query) => (await request(path, query)).blob();

export const sessionPath = (id, rest = '') => `sessions/${encodeURIComponent(id)}${rest}`;
