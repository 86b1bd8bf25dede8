// DOM helpers. Stored values are hostile input: they only ever become text nodes
// or attribute values, never markup (no innerHTML anywhere in the viewer).

/** An element with attributes (`on*` functions become listeners) and children (strings become text). */
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on') && typeof value === 'function') element.addEventListener(name.slice(2), value);
    else if (name === 'dataset') for (const [key, item] of Object.entries(value)) element.dataset[key] = text(item);
    else element.setAttribute(name, value === true ? '' : text(value));
  }
  append(element, children);
  return element;
}

function append(element, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    element.append(child instanceof Node ? child : document.createTextNode(text(child)));
  }
}

/**
 * Any stored value as text: a string as it is, anything else as its JSON. The store
 * takes any JSON in a part's fields, and String() throws on an object whose
 * toString is not a function: one such message must not blank a page.
 */
export function text(value) {
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return '[a value that cannot be shown as text]';
  }
}

export function replace(element, ...children) {
  element.replaceChildren();
  append(element, children);
  return element;
}

/** A link to a route of the page. */
export const link = (route, text, attributes = {}) => h('a', { href: `#${route}`, ...attributes }, text);

export const sessionRoute = (id, query = '') => `/session/${encodeURIComponent(id)}${query}`;

/** A collapsible block whose body is built only when first opened: a long page stays light. */
export function lazyDetails(summary, build, attributes = {}) {
  const details = h('details', attributes, h('summary', {}, summary));
  details.addEventListener('toggle', () => {
    if (details.open && details.childElementCount === 1) append(details, [build()]);
  });
  return details;
}

export const json = (value) => h('pre', { class: 'json' }, JSON.stringify(value, null, 2));

export const date = (iso) => (iso ? new Date(iso).toLocaleString() : '');

export function bytes(value) {
  return new TextEncoder().encode(JSON.stringify(value)).length;
}
