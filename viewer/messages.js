// One message as read: its parts, its tool calls paired with their results, and its details on demand.
import { bytes, date, h, json, lazyDetails, text } from './dom.js';

// Stored values are read defensively: a part of an unexpected shape is shown as JSON, never trusted to have fields.
const partsOf = (message) => {
  if (typeof message.content === 'string') return [{ type: 'text', text: message.content }];
  if (!Array.isArray(message.content)) return [{ type: 'content', content: message.content }];
  return message.content.map((part) => (part && typeof part === 'object' && !Array.isArray(part) ? part : { type: 'part', part }));
};

/**
 * Pairs tool calls with results over `items` ({ seq, message }, in order) as
 * the AI SDK does: an assistant's calls are answered in the tool messages
 * right after it. `complete` says the items reach the end of the session, so a
 * call still unanswered there is orphaned rather than answered further on.
 * Returns, by item index and toolCallId, the other side's item (or 'orphaned').
 */
export function pairToolCalls(items, complete) {
  const pairs = new Map();
  items.forEach(({ message }, i) => {
    if (message.role !== 'assistant') return;
    const calls = partsOf(message).filter((part) => part.type === 'tool-call');
    if (calls.length === 0) return;
    const open = new Set(calls.map((part) => text(part.toolCallId)));
    let j = i + 1;
    for (; j < items.length && items[j].message.role === 'tool' && open.size > 0; j++) {
      for (const part of partsOf(items[j].message)) {
        const id = text(part.toolCallId);
        if (part.type !== 'tool-result' || !open.has(id)) continue;
        open.delete(id);
        pairs.set(`${i}:${id}`, items[j]);
        pairs.set(`${j}:${id}`, items[i]);
      }
    }
    // Past the items' end the answer may still come, unless they are the whole rest of the session.
    const settled = j < items.length || complete;
    if (settled) for (const toolCallId of open) pairs.set(`${i}:${toolCallId}`, 'orphaned');
  });
  return pairs;
}

/**
 * A message. `options`: seq (null for a boundary's own messages), pairs and
 * index (from pairToolCalls), origin (where a boundary's message came from,
 * shown in its heading in place of a seq), dim (why it is dimmed: its title),
 * idPrefix (its element's id, so a paired call or result can be scrolled to),
 * goTo(seq) (to reach a seq that is not on the page).
 */
export function messageView(message, { seq = null, pairs = new Map(), index = -1, origin = null, dim = null, idPrefix = null, goTo = null } = {}) {
  const other = (part) => pairs.get(`${index}:${text(part.toolCallId)}`);
  // Where the other side of a pair is: a link to its seq, or (a boundary's messages have none) this list.
  const jump = (target) =>
    target?.seq == null
      ? 'in this list'
      : [
          'at ',
          h(
            'a',
            {
              href: '',
              class: 'seq-link',
              onclick: (event) => {
                event.preventDefault();
                const element = idPrefix && document.getElementById(`${idPrefix}-${target.seq}`);
                if (element) {
                  element.scrollIntoView({ block: 'center' });
                  element.classList.add('flash');
                  setTimeout(() => element.classList.remove('flash'), 1500);
                } else goTo?.(target.seq);
              },
            },
            `seq ${target.seq}`,
          ),
        ];
  const part = (value) => {
    switch (value.type) {
      case 'text':
        return h('p', { class: 'text' }, value.text);
      case 'reasoning':
        return h('p', { class: 'reasoning' }, h('span', { class: 'label' }, 'reasoning '), value.text);
      case 'tool-call': {
        const result = other(value);
        return h(
          'div',
          { class: 'tool-call', 'data-testid': 'tool-call', dataset: { toolCallId: value.toolCallId } },
          h('span', { class: 'label' }, '→ call '),
          h('code', {}, value.toolName),
          ' ',
          h('span', { class: 'muted' }, value.toolCallId),
          ' ',
          result === 'orphaned'
            ? h('span', { class: 'orphaned', 'data-testid': 'orphaned' }, 'orphaned: no result followed')
            : result
              ? h('span', { class: 'paired', 'data-testid': 'tool-paired' }, 'result ', jump(result))
              : h('span', { class: 'muted' }, 'result not on this page'),
          json(value.input),
        );
      }
      case 'tool-result': {
        const call = other(value);
        const output = value.output && typeof value.output === 'object' ? value.output : { type: typeof value.output, value: value.output };
        return h(
          'div',
          {
            class: `tool-result${output.type === 'error-text' || output.type === 'error-json' ? ' failed' : ''}`,
            'data-testid': 'tool-result',
            dataset: { toolCallId: value.toolCallId },
          },
          h('span', { class: 'label' }, '← result '),
          h('code', {}, value.toolName),
          ' ',
          h('span', { class: 'muted' }, `${text(value.toolCallId)} (${text(output.type)})`),
          ' ',
          call ? h('span', { class: 'paired', 'data-testid': 'tool-paired' }, 'call ', jump(call)) : null,
          'value' in output ? json(output.value) : json(output),
        );
      }
      case 'image':
      case 'file':
        // Shown as text: a URL found in a message is never loaded.
        return h(
          'p',
          { class: 'attachment' },
          h('span', { class: 'label' }, `[${value.type} ${text(value.mediaType ?? value.mimeType ?? '')}] `),
          describe(value.image ?? value.data ?? value.url),
        );
      default:
        return h('div', { class: 'part' }, h('span', { class: 'label' }, `[${text(value.type)}]`), json(value));
    }
  };
  return h(
    'article',
    {
      class: `message role-${text(message.role).replace(/[^a-z]/g, '')}${dim ? ' dim' : ''}`,
      'data-testid': 'message',
      id: idPrefix && seq != null ? `${idPrefix}-${seq}` : null,
      dataset: { seq: seq ?? 'boundary', role: message.role },
      title: dim,
    },
    h(
      'header',
      {},
      seq != null ? [h('span', { class: 'seq' }, `seq ${seq}`), ' '] : null,
      origin ? [h('span', { class: 'seq origin', 'data-testid': 'origin' }, origin), ' '] : null,
      h('strong', {}, message.role),
    ),
    partsOf(message).map(part),
    lazyDetails('details', () => details(message), { class: 'message-details', 'data-testid': 'message-details' }),
  );
}

function describe(value) {
  if (typeof value !== 'string') return JSON.stringify(value) ?? '';
  return value.length > 200 ? `${value.slice(0, 200)}… (${value.length} characters)` : value;
}

function details(message) {
  return h(
    'dl',
    { class: 'facts' },
    h('dt', {}, 'id'),
    h('dd', {}, message.id ?? '—'),
    h('dt', {}, 'created'),
    h('dd', {}, message.createdAt ? `${date(message.createdAt)} (${message.createdAt})` : '—'),
    h('dt', {}, 'size'),
    h('dd', { 'data-testid': 'message-size' }, `${bytes(message)} bytes of JSON (UTF-8)`),
    h('dt', {}, 'metadata'),
    h('dd', {}, json(message.metadata ?? null)),
    h('dt', {}, 'providerOptions'),
    h('dd', {}, json(message.providerOptions ?? null)),
    h('dt', {}, 'raw'),
    h('dd', {}, json(message)),
  );
}

/** A list of messages that pairs its own tool calls (a boundary's summary or projection). */
export function messageList(messages, options = {}) {
  const items = messages.map((message) => ({ seq: null, message }));
  const pairs = pairToolCalls(items, true);
  return h(
    'div',
    { class: 'message-list' },
    items.map(({ message }, index) => messageView(message, { ...options, pairs, index })),
  );
}
