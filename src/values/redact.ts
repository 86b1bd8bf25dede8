// Connection strings and driver messages carry secrets: never echo one back.
// The rules lean to hiding too much: a url that cannot be read for sure (an
// unencoded `@`, `:` or `/` in a password) loses more than its password, never less.

/** Parameter names whose value may be a secret (case-insensitive, also inside a longer name: sslpassword, access_token, api_key). */
const SECRET_NAME = /pass|pwd|secret|token|key|credential/i;
/** What a masked secret prints as. */
const MASK = '***';

const SCHEME = /^\s*([a-z][a-z0-9+.-]*:)(\/\/)?/i;
// A keyword string: libpq's (host=db password='a b', spaces allowed around =) or the ;-separated kind (Server=db;Password=…).
const KEYWORDS = /^\s*[\w.-]+\s*=/;
const LIBPQ_PAIR = /(^|\s)([\w.-]+)(\s*=\s*)('(?:\\.|[^'\\])*'?|\S*)/g;
const SEMICOLON_PAIR = /(^|;)([^=;]+)(=)([^;]*)/g;
// A `name=value` parameter after `?`, `&` or `;`. Its value runs on over an `&` or `;` that no `name=` follows,
// so an unencoded `&` in a password does not end it early.
const PARAMETER = /([?&;])([^=&;?#]*)=((?:[^&;]|[&;](?![^&;=]*=))*)/g;
// In free text: a url up to the next whitespace, and a libpq-style `name=value` pair.
const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]*:\/\/\S+/gi;
const PAIR_IN_TEXT = /(^|[\s(,])([\w.-]+)(=)('[^']*'|"[^"]*"|[^\s&;,)]*)/g;
// A url's `user:` and what follows it on the line up to an `@`: a password with a space in it, which URL_IN_TEXT
// cut short. Not a port (`host:5432/`), not past a quote, and bounded, so that no text takes long to scan.
const USERINFO_ON_LINE = /\b([a-z][a-z0-9+.-]*:\/\/[^\s:@/]*:)(?!\d+(?:[/\s]|$))[^@\n'"]{0,256}@/gi;

/**
 * `url` with its password and every secret parameter masked; the scheme, user,
 * host, port, database and other parameters stay, for the reader to see which
 * database is meant. Userinfo runs from `//` to the url's last `@` (an
 * unencoded `@` in a password is part of it); the user is what comes before
 * its first `:`. `file:` urls hold no userinfo: their path is kept whole.
 */
export function redactUrl(url: string): string {
  const start = SCHEME.exec(url);
  // A keyword string has no userinfo, only pairs.
  if (!start && KEYWORDS.test(url)) return url.replace(url.includes(';') ? SEMICOLON_PAIR : LIBPQ_PAIR, maskPair);
  if (start?.[1].toLowerCase() === 'file:') return redactParameters(url);
  const hostStart = start?.[0].length ?? 0;
  const at = url.lastIndexOf('@');
  if (at < hostStart) return redactParameters(url);
  const userinfo = url.slice(hostStart, at);
  const colon = userinfo.indexOf(':');
  // Without `//` the text is no url we can read: all of what precedes the `@` may be a password.
  const user = start?.[2] === undefined ? '' : colon < 0 ? userinfo : `${userinfo.slice(0, colon)}:`;
  const masked = user === userinfo ? userinfo : `${user}${MASK}`;
  return redactParameters(`${url.slice(0, hostStart)}${masked}${url.slice(at)}`);
}

/** `text` (a log line, a driver's message) with every url in it redacted as redactUrl does, and every secret `name=value` pair masked. */
export function redactText(text: string): string {
  return text.replace(USERINFO_ON_LINE, `$1${MASK}@`).replace(URL_IN_TEXT, redactUrl).replace(PAIR_IN_TEXT, maskPair);
}

/** A `name=value` pair (the groups of the *_PAIR patterns), its value masked if its name may be a secret's. */
const maskPair = (pair: string, before: string, name: string, equals: string) => (isSecretName(name.trim()) ? `${before}${name}${equals}${MASK}` : pair);

const redactParameters = (url: string) =>
  url.replace(PARAMETER, (parameter, separator: string, name: string) => (isSecretName(name) ? `${separator}${name}=${MASK}` : parameter));

function isSecretName(name: string): boolean {
  try {
    return SECRET_NAME.test(decodeURIComponent(name));
  } catch {
    return SECRET_NAME.test(name);
  }
}
