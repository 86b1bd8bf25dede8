// DOM helpers. Stored values are hostile input: they only ever become text nodes
// or attribute values, never markup (no innerHTML anywhere in the viewer).

/** An element with attributes (`on*` functions become listeners) and children (strings become text). */
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on') && typeof value === 'function') element.addEventListener(name.slice(2), value);
    else if (name === 'dataset') Object.assign(element.dataset, value);
    else element.setAttribute(name, value === true ? '' : String(value));
  }
  append(element, children);
  return element;
}

function append(element, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
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
