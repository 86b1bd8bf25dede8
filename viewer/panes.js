// The effective history and the log, side by side, each a page at a time:
// a 100,000-message session is never read whole.
import { getJson, sessionPath } from './api.js';
import { h, json, lazyDetails, link, replace, sessionRoute } from './dom.js';
import { messageList, messageView, pairToolCalls } from './messages.js';
import { boundaryOrigins } from './origins.js';

const PAGE = 100;
// How far into the next page a call's results are looked for, when a page ends right after it.
const LOOKAHEAD = 20;

const endsMidTools = (items) => {
  const last = items.at(-1)?.message;
  return last?.role === 'tool' || (last?.role === 'assistant' && Array.isArray(last.content) && last.content.some((part) => part?.type === 'tool-call'));
};

/**
 * Pairs tool calls over a page, looking into the head of the next one (`next`:
 * what reads it, or null at the end) when the page ends mid-exchange, and
 * into the tail of the one before (`readBehind`, when given) when it starts
 * with results. The page's item i is item i + offset of the pairs.
 */
async function pagePairs(items, next, readAhead, readBehind = null) {
  const behind = readBehind && items[0]?.message.role === 'tool' ? await readBehind(items[0].seq) : [];
  const ahead = next && endsMidTools(items) ? await readAhead(next) : { items: [], more: next != null };
  return { pairs: pairToolCalls([...behind, ...items, ...ahead.items], !ahead.more), offset: behind.length };
}

function pager(label) {
  const previous = h('button', { type: 'button', 'data-testid': `${label}-previous`, disabled: true }, 'Previous');
  const next = h('button', { type: 'button', 'data-testid': `${label}-next`, disabled: true }, 'Next');
  const status = h('span', { class: 'muted', 'data-testid': `${label}-status` });
  let latest = 0;
  /**
   * Runs a page's load with the buttons off (a second click cannot start a second
   * load) and hands it `current()`, false once a later load started: an answer
   * overtaken by a jump or a link is dropped, not drawn over the newer page.
   */
  const load = (work) => {
    const ticket = ++latest;
    previous.disabled = next.disabled = true;
    return work(() => ticket === latest);
  };
  return { previous, next, status, load, element: h('nav', { class: 'pager' }, previous, next, status) };
}

function boundaryText(entry) {
  const replaced = `replaces seq ≤ ${entry.cutSeq} with ${entry.messages.length} message${entry.messages.length === 1 ? '' : 's'}`;
  return entry.type === 'compaction'
    ? `compaction at seq ${entry.seq} ${replaced}, ${entry.retainedMessageCount} kept verbatim (made from ${entry.sourceMessageCount} of the history)`
    : `repair at seq ${entry.seq} ${replaced} (the balanced projection of ${entry.sourceMessageCount} of the history)`;
}

/** A link that opens the log at `seq`. */
const seqLink = (id, seq) => link(sessionRoute(id, `?seq=${seq}`), `seq ${seq}`, { class: 'seq-link' });

/** Where a boundary's message came from (see boundaryOrigins), said in its heading. */
function originView(id, origin) {
  const boundary = origin.madeBy ?? origin.carriedBy;
  if (!boundary) {
    const completed = origin.completedBy ? [', completed by the repair at ', seqLink(id, origin.completedBy.seq)] : [];
    return [origin.keptBy ? 'kept from ' : '', seqLink(id, origin.seq), ...completed];
  }
  const compaction = boundary.type === 'compaction';
  const verb = origin.madeBy ? (compaction ? 'summary' : 'added') : compaction ? 'kept' : 'carried';
  return h(
    'span',
    { title: origin.carriedBy ? 'its origin is not in what the viewer read of the log: further back, or pruned' : null },
    `${verb} by the ${boundary.type} at `,
    seqLink(id, boundary.seq),
  );
}

/**
 * The effective history, paged by its cursors. Resolves to the latest
 * boundary (the log entry at the history's startSeq), or null without one.
 */
export async function historyPane(container, id) {
  const list = h('div', { class: 'entries', 'data-testid': 'history-entries' });
  const note = h('p', { class: 'muted', 'data-testid': 'history-start' });
  const nav = pager('history');
  replace(container, h('h2', {}, 'Effective history'), note, nav.element, list);
  const read = (cursor, limit = PAGE) => getJson(sessionPath(id, '/history'), { limit, cursor });
  const readAhead = async (cursor) => {
    const page = await read(cursor, LOOKAHEAD);
    return { items: page.messages.map((message) => ({ seq: message.seq, message })), more: page.nextCursor != null };
  };

  const readLog = (query) => getJson(sessionPath(id, '/log'), query);
  const first = await read(null);
  let boundary = null;
  if (first.startSeq != null) {
    const [entry] = (await readLog({ fromSeq: first.startSeq, limit: 1 })).entries;
    if (entry && entry.seq === first.startSeq && (entry.type === 'compaction' || entry.type === 'repair')) boundary = entry;
  }
  // The history starts with the boundary's messages, in order: the first ones have these origins, once traced.
  let origins = [];
  replace(
    note,
    boundary
      ? `Starts with the ${boundary.type} at seq ${boundary.seq} (it replaces seq ≤ ${boundary.cutSeq}).`
      : 'No compaction or repair: the history is the transcript.',
  );

  // The pages opened, each by its cursor (the first by none), with its first message's position in the history.
  const opened = [{ cursor: null, offset: 0 }];
  // What the list shows, drawn again once the origins are traced.
  let drawn = null;
  const draw = ({ items, pairs, offset }) =>
    replace(
      list,
      items.map(({ seq, message }, index) => {
        const origin = seq == null ? origins[offset + index] : undefined;
        return h(
          'div',
          { 'data-testid': 'history-entry' },
          messageView(message, { seq, pairs, index, idPrefix: 'history', origin: origin && originView(id, origin) }),
        );
      }),
    );
  const show = async (page, current = () => true) => {
    const items = page.messages.map((message) => ({ seq: message.seq, message }));
    const { pairs } = await pagePairs(items, page.nextCursor, readAhead);
    if (!current()) return;
    const { offset } = opened.at(-1);
    drawn = { items, pairs, offset };
    draw(drawn);
    nav.status.textContent = `page ${opened.length}, ${items.length} message${items.length === 1 ? '' : 's'}`;
    nav.previous.disabled = opened.length === 1;
    nav.next.disabled = !page.nextCursor;
    nav.next.onclick = () => step(() => opened.push({ cursor: page.nextCursor, offset: offset + items.length }));
  };
  const step = (move) =>
    nav.load(async (current) => {
      move();
      // Until the next page is shown (or its error), nothing is redrawn with the origins.
      drawn = null;
      try {
        await show(await read(opened.at(-1).cursor), current);
      } catch (error) {
        if (!current()) return;
        replace(list, h('p', { class: 'error', role: 'alert' }, error.message));
        nav.previous.disabled = opened.length === 1;
      }
    });
  nav.previous.onclick = () => step(() => opened.pop());
  await show(first);
  // Traced once the page is drawn: a label must not hold the history back, and a failed read only leaves the labels out.
  if (boundary) {
    boundaryOrigins(readLog, boundary).then(
      (traced) => {
        origins = traced;
        // Only a page that holds a boundary's messages changes (redrawing closes the details opened on it).
        if (drawn && drawn.items.some(({ seq }) => seq == null)) draw(drawn);
      },
      () => {},
    );
  }
  return boundary;
}

/**
 * The log: messages, events and boundaries at their seq, paged forward by its
 * cursors and back by the pages seen; `jump to seq` starts a page anywhere.
 * Messages the latest boundary cut away are dimmed, as a note above them says once.
 */
export async function logPane(container, id, boundary, startAt) {
  const list = h('div', { class: 'entries', 'data-testid': 'log-entries' });
  const nav = pager('log');
  const seqInput = h('input', { type: 'number', min: 1, step: 1, required: true, 'data-testid': 'jump-seq', 'aria-label': 'seq' });
  const jumpForm = h(
    'form',
    {
      class: 'jump',
      onsubmit: (event) => {
        event.preventDefault();
        go({ fromSeq: Number(seqInput.value) }, true);
      },
    },
    h('label', {}, 'jump to seq ', seqInput),
    h('button', { type: 'submit', 'data-testid': 'jump-go' }, 'Go'),
  );
  const replacedBy = boundary && `replaced by the ${boundary.type} at seq ${boundary.seq}`;
  replace(
    container,
    h('h2', {}, 'Log (transcript, events, boundaries)'),
    boundary
      ? h('p', { class: 'cut-note', 'data-testid': 'log-cut-note' }, `Dimmed: seq ≤ ${boundary.cutSeq}, ${replacedBy}; not in the effective history.`)
      : null,
    h('div', { class: 'controls' }, nav.element, jumpForm),
    list,
  );
  const read = (request, limit = PAGE) => getJson(sessionPath(id, '/log'), { limit, cursor: request.cursor, fromSeq: request.fromSeq });
  const readAhead = async (request) => {
    const page = await read(request, LOOKAHEAD);
    return { items: messagesOf(page.entries), more: page.nextCursor != null };
  };
  // The messages just before seq `first`, whose calls a page starting with results answers.
  const readBehind = async (first) => {
    if (!(first > 1)) return [];
    const page = await read({ fromSeq: Math.max(1, first - LOOKAHEAD) }, LOOKAHEAD);
    return messagesOf(page.entries.filter((entry) => entry.seq < first));
  };
  const messagesOf = (entries) => entries.filter((entry) => entry.type === 'message').map((entry) => ({ seq: entry.seq, message: entry.message }));

  // The requests that opened the pages before this one, for Previous.
  let requests = [];
  let page = null;
  const go = (request, fresh = false) =>
    nav.load(async (current) => {
      try {
        const answer = await read(request);
        if (!current()) return;
        let next = answer.nextCursor ? { cursor: answer.nextCursor } : null;
        // A page before a jumped-to one: the entries just before it (seqs may have gaps, so it can be short),
        // followed by the jumped-to page itself rather than by what the cursor skipped to.
        if (request.before && answer.entries.some((entry) => entry.seq >= request.before)) {
          answer.entries = answer.entries.filter((entry) => entry.seq < request.before);
          next = { fromSeq: request.before };
        }
        if (fresh) requests = [];
        requests.push(request);
        page = { entries: answer.entries, next };
        await show(page, current);
      } catch (error) {
        if (!current()) return;
        replace(list, h('p', { class: 'error', role: 'alert', 'data-testid': 'log-error' }, error.message));
        // Previous goes back to the last page shown.
        nav.previous.disabled = page === null;
      }
    });
  nav.next.onclick = () => go(page.next);
  nav.previous.onclick = () => {
    if (requests.length > 1) {
      requests.pop();
      go(requests.pop());
    } else {
      const before = page.entries[0]?.seq ?? 1;
      go({ fromSeq: Math.max(1, before - PAGE), before }, true);
    }
  };

  const show = async ({ entries, next }, current) => {
    const items = messagesOf(entries);
    const { pairs, offset } = await pagePairs(items, next, readAhead, readBehind);
    if (!current()) return;
    const indexOf = new Map(items.map((item, index) => [item.seq, index + offset]));
    const goTo = (seq) => go({ fromSeq: seq }, true);
    replace(
      list,
      entries.map((entry) => h('div', { 'data-testid': 'log-entry', dataset: { seq: entry.seq, type: entry.type } }, entryView(entry))),
    );
    function entryView(entry) {
      if (entry.type === 'message') {
        const dim = boundary != null && entry.seq <= boundary.cutSeq ? `Not in the effective history: ${replacedBy}.` : null;
        return messageView(entry.message, { seq: entry.seq, pairs, index: indexOf.get(entry.seq), dim, idPrefix: 'log', goTo });
      }
      if (entry.type === 'event') {
        return h(
          'div',
          { class: 'event', 'data-testid': 'event', id: `log-${entry.seq}` },
          h('span', { class: 'seq' }, `seq ${entry.seq}`),
          ' ',
          h('strong', {}, 'event '),
          h('code', {}, entry.event?.type ?? ''),
          entry.event?.data === undefined || entry.event?.data === null ? null : json(entry.event.data),
        );
      }
      if (entry.type === 'compaction' || entry.type === 'repair') return boundaryView(entry, boundary?.seq === entry.seq);
      return h('div', { class: 'part' }, json(entry));
    }
    const first = entries[0]?.seq;
    const last = entries.at(-1)?.seq;
    nav.status.textContent = entries.length ? `seq ${first}–${last}, ${entries.length} entries` : 'no entries here';
    nav.previous.disabled = requests.length <= 1 && !(first > 1);
    nav.next.disabled = !next;
  };

  await go(startAt ? { fromSeq: startAt } : {}, true);
}

function boundaryView(entry, latest) {
  return h(
    'div',
    {
      class: `boundary ${entry.type}${latest ? ' latest' : ''}`,
      'data-testid': 'boundary',
      dataset: { kind: entry.type, seq: entry.seq, cutSeq: entry.cutSeq },
      id: `log-${entry.seq}`,
    },
    h(
      'p',
      { 'data-testid': 'boundary-text' },
      h('strong', {}, boundaryText(entry)),
      latest ? h('span', { class: 'badge' }, 'latest: the effective history starts here') : null,
    ),
    lazyDetails(entry.type === 'compaction' ? 'the summary and the kept messages' : 'the balanced projection', () => messageList(entry.messages), {
      'data-testid': 'boundary-messages',
    }),
    entry.type === 'repair'
      ? lazyDetails('the repair evidence: its repair message', () => messageView(entry.repairMessage), { 'data-testid': 'repair-evidence' })
      : null,
  );
}
