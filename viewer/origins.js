// Where each message of the latest boundary came from. A boundary's messages are
// what it made (a compaction's summary, a repair's results) and messages of the
// history it replaced, kept with their createdAt and exact JSON. So matching
// them against that history (the previous boundary's messages, then the log's
// messages after its cut, up to this boundary's cut) finds what each carries.

// The log is read back from the latest boundary a page at a time, and only so far:
// a 100,000-message session must not be read whole for a label.
const PAGE = 250;
const MAX_PAGES = 4;
// Matching costs some microseconds a message: a boundary larger than this is left unlabelled, not traced.
const MAX_TRACED = 5000;

/**
 * The origin of each of `latest.messages`, in order: `{ seq, keptBy }` for a log
 * message (keptBy: the seq of the compaction that kept it verbatim, or null),
 * `{ madeBy }` for one a boundary made, `{ seq, keptBy, completedBy }` for a log
 * message a repair added results to, `{ carriedBy }` when it came from before
 * what was read (madeBy, completedBy and carriedBy are log entries).
 * `readLog({ fromSeq, limit })` reads a page of the log.
 */
export async function boundaryOrigins(readLog, latest) {
  if (!isBoundary(latest) || latest.messages.length > MAX_TRACED) return [];
  let entries = [];
  // The lowest seq read: everything from it up to the boundary is in `entries`.
  let from = latest.seq;
  let origins = attribute(latest, entries);
  for (let pages = 0; pages < MAX_PAGES && from > 1 && origins.some((origin) => origin.carriedBy); pages++) {
    const start = Math.max(1, from - PAGE);
    // Seqs are unique, so the page holds every entry from `start` up to `from`.
    const page = await readLog({ fromSeq: start, limit: PAGE });
    entries = [...page.entries.filter((entry) => entry.seq < from), ...entries];
    from = start;
    origins = attribute(latest, entries);
  }
  return origins;
}

/** Attributes each boundary read, oldest first, from the one before it: the latest's origins. */
function attribute(latest, entries) {
  let previous = null;
  for (const entry of [...entries, latest]) {
    if (!isBoundary(entry)) continue;
    // A boundary too large to match (or emptied by a prune) says only that it carried its messages.
    const origins = entry.messages.length > MAX_TRACED ? entry.messages.map(() => ({ carriedBy: entry })) : originsOf(entry, usable(previous), entries);
    previous = { entry, messages: entry.messages, origins };
  }
  return previous.origins;
}

/** The boundary before, if its messages can be matched against: not emptied by a prune, not too large. */
const usable = (previous) => (previous && previous.messages.length > 0 && previous.messages.length <= MAX_TRACED ? previous : null);

function originsOf(boundary, previous, entries) {
  const cut = previous?.entry.cutSeq ?? 0;
  const candidates = new Candidates([
    ...(previous?.messages.map((message, i) => ({ key: canonical(message), origin: previous.origins[i] })) ?? []),
    ...entries
      .filter((entry) => entry.type === 'message' && entry.seq > cut && entry.seq <= boundary.cutSeq)
      .map((entry) => ({ key: canonical(entry.message), origin: { seq: entry.seq, keptBy: null } })),
  ]);
  return boundary.type === 'compaction' ? compactionOrigins(boundary, candidates) : repairOrigins(boundary, candidates);
}

/** The history a boundary replaced, in order, with each message's position found by its key. */
class Candidates {
  constructor(list) {
    this.list = list;
    this.positions = new Map();
    list.forEach(({ key }, index) => {
      if (this.positions.has(key)) this.positions.get(key).push(index);
      else this.positions.set(key, [index]);
    });
  }

  /** The first position of `key` at or after `from`, or -1. */
  firstFrom(key, from) {
    return this.positions.get(key)?.find((index) => index >= from) ?? -1;
  }

  /** The last position of `key` before `before`, or -1. */
  lastBefore(key, before) {
    return this.positions.get(key)?.findLast((index) => index < before) ?? -1;
  }
}

/**
 * A compaction's first messages are its summary; the rest it kept verbatim from the end of the history, so they
 * are matched from the end (of two equal messages, the later one was kept), and the first one not matched, with
 * all before it, came from further back (or was pruned).
 */
function compactionOrigins(boundary, candidates) {
  const summaries = Math.max(0, boundary.messages.length - boundary.retainedMessageCount);
  const origins = boundary.messages.map((_message, i) => (i < summaries ? { madeBy: boundary } : { carriedBy: boundary }));
  let before = candidates.list.length;
  for (let i = boundary.messages.length - 1; i >= summaries; i--) {
    const at = candidates.lastBefore(canonical(boundary.messages[i]), before);
    if (at < 0) break;
    before = at;
    const { origin } = candidates.list[at];
    origins[i] = origin.seq !== undefined && origin.keptBy === null ? { ...origin, keptBy: boundary.seq } : origin;
  }
  return origins;
}

/**
 * A repair's messages are the history in order, with tool results added: whole messages of its evidence, or
 * results merged into a tool message the history held. A message matched as it is keeps its origin; one matched
 * once the evidence's results are taken out was completed by the repair; one of evidence only, the repair made;
 * any other came from further back (or was pruned).
 */
function repairOrigins(boundary, candidates) {
  const evidence = new Set(partsOf(boundary.repairMessage).map(canonical));
  let next = 0;
  return boundary.messages.map((message) => {
    let at = candidates.firstFrom(canonical(message), next);
    const parts = partsOf(message);
    const added = parts.filter((part) => evidence.has(canonical(part)));
    let completed = false;
    if (at < 0 && added.length > 0 && added.length < parts.length) {
      at = candidates.firstFrom(canonical({ ...message, content: parts.filter((part) => !evidence.has(canonical(part))) }), next);
      completed = at >= 0;
    }
    if (at < 0) return added.length > 0 && added.length === parts.length ? { madeBy: boundary } : { carriedBy: boundary };
    next = at + 1;
    const { origin } = candidates.list[at];
    return completed ? { ...origin, completedBy: boundary } : origin;
  });
}

/** A compaction or repair with its messages: stored values are read defensively. */
const isBoundary = (entry) => (entry?.type === 'compaction' || entry?.type === 'repair') && Array.isArray(entry.messages);

const partsOf = (message) => (Array.isArray(message?.content) ? message.content : []);

// Each stored value is read once per page load, but matched many times: its key is kept.
const keys = new WeakMap();

/** JSON with every object's keys sorted: a database may store a boundary's messages with their keys reordered. */
function canonical(value) {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'undefined';
  let key = keys.get(value);
  if (key === undefined) {
    key = JSON.stringify(value, (_key, item) =>
      item && typeof item === 'object' && !Array.isArray(item)
        ? Object.fromEntries(Object.entries(item).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
        : item,
    );
    keys.set(value, key);
  }
  return key;
}
