// Where each message of the latest boundary came from. A boundary's messages are
// what it made (a compaction's summary, a repair's results) and messages of the
// history it replaced, kept with their createdAt and exact JSON. So matching
// them in order against that history (the previous boundary's messages, then
// the log's messages after its cut, up to this boundary's cut) finds what each
// carries; what matches nothing, the boundary made.

// The log is read back from the latest boundary a page at a time, and only so far:
// a 100,000-message session must not be read whole for a label.
const PAGE = 250;
const MAX_PAGES = 4;

/**
 * The origin of each of `latest.messages`, in order: `{ seq, keptBy }` for a log
 * message (keptBy: the seq of the compaction that kept it verbatim, or null),
 * `{ madeBy }` for one a boundary made, `{ carriedBy }` when it came from
 * before what was read (madeBy and carriedBy are log entries).
 * `readLog({ fromSeq, limit })` reads a page of the log.
 */
export async function boundaryOrigins(readLog, latest) {
  let entries = [];
  // The lowest seq read: everything from it up to the boundary is in `entries`.
  let from = latest.seq;
  let origins = attribute(latest, entries, from);
  for (let pages = 0; pages < MAX_PAGES && from > 1 && origins.some((origin) => origin.carriedBy); pages++) {
    const start = Math.max(1, from - PAGE);
    // Seqs are unique, so the page holds every entry from `start` up to `from`.
    const page = await readLog({ fromSeq: start, limit: PAGE });
    entries = [...page.entries.filter((entry) => entry.seq < from), ...entries];
    from = start;
    origins = attribute(latest, entries, from);
  }
  return origins;
}

/** Attributes each boundary read, oldest first, from the one before it: the latest's origins. */
function attribute(latest, entries, from) {
  let previous = null;
  for (const entry of [...entries, latest]) {
    if (entry.type === 'compaction' || entry.type === 'repair') previous = { entry, origins: originsOf(entry, previous, entries, from) };
  }
  return previous.origins;
}

function originsOf(boundary, previous, entries, from) {
  const cut = previous?.entry.cutSeq ?? 0;
  const candidates = [
    ...(previous?.entry.messages.map((message, i) => ({ message, origin: previous.origins[i] })) ?? []),
    ...entries
      .filter((entry) => entry.type === 'message' && entry.seq > cut && entry.seq <= boundary.cutSeq)
      .map((entry) => ({ message: entry.message, origin: { seq: entry.seq, keptBy: null } })),
  ];
  const positions = new Map();
  candidates.forEach(({ message }, index) => {
    const key = canonical(message);
    if (positions.has(key)) positions.get(key).push(index);
    else positions.set(key, [index]);
  });
  // All of the history it replaced was read: back to the previous boundary's cut, or to the log's start.
  const complete = from <= cut + 1;
  // Without all of it, only these are known to be its own: a compaction's summary comes first, a repair's evidence is its result.
  const summaries = boundary.type === 'compaction' ? boundary.messages.length - boundary.retainedMessageCount : 0;
  const evidence = boundary.type === 'repair' ? canonical(boundary.repairMessage) : null;
  let next = 0;
  return boundary.messages.map((message, i) => {
    const key = canonical(message);
    const at = positions.get(key)?.find((index) => index >= next);
    if (at === undefined) return complete || i < summaries || key === evidence ? { madeBy: boundary } : { carriedBy: boundary };
    next = at + 1;
    const { origin } = candidates[at];
    return boundary.type === 'compaction' && origin.seq !== undefined && origin.keptBy === null ? { ...origin, keptBy: boundary.seq } : origin;
  });
}

/** JSON with every object's keys sorted: a database may store a boundary's messages with their keys reordered. */
function canonical(value) {
  return JSON.stringify(value, (_key, item) =>
    item && typeof item === 'object' && !Array.isArray(item) ? Object.fromEntries(Object.entries(item).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : item,
  );
}
