// What the stores hold for some sessions, read through the public API only:
// how the conformance suite proves that a write changed nothing, or left nothing.
import type { MessageStore, SessionStore, TranscriptStore } from '../index.js';

/** The unscoped stores (a KitStore), or one tenant's (ScopedStores). */
export type Stores = {
  /** Its MessageStore. */
  messages: MessageStore;
  /** Its TranscriptStore. */
  transcripts: TranscriptStore;
  /** Its SessionStore. */
  sessions: SessionStore;
};

/** A line of a session's JSONL export, parsed: its header, a log entry, or a subsession. */
export type ExportedLine = {
  /** The line's type: `'session'`, `'message'`, `'event'`, `'compaction'`, `'repair'` or `'subsession'`. */
  type: string;
  /** A log entry's seq. */
  seq?: number;
  /** A compaction's or repair's cut (see SessionLogEntry). */
  cutSeq?: number;
  /** A subsession line's child: the subsession's id. */
  childId?: string;
} & Record<string, unknown>;

/** The session's JSONL export, parsed: its header, its log (messages, events, compactions, repairs), its subsessions; [] when it does not exist. */
export async function exportedLines(stores: Stores, id: string): Promise<ExportedLine[]> {
  if (!(await stores.sessions.get(id))) return [];
  const lines: ExportedLine[] = [];
  for await (const line of stores.sessions.exportJsonl(id)) lines.push(JSON.parse(line) as ExportedLine);
  return lines;
}

const isBoundary = (line: ExportedLine) => line.type === 'compaction' || line.type === 'repair';

/** How many compaction and repair boundaries the session's log holds (0 when it does not exist). */
export async function boundaryCount(stores: Stores, id: string): Promise<number> {
  return (await exportedLines(stores, id)).filter(isBoundary).length;
}

/**
 * What the unscoped stores hold for these sessions, counted as the tables
 * count it: sessions, log entries (messages and events), boundaries, repair
 * evidence, and subsession edges to or from any of them. The log of a session
 * that does not exist is read through getTranscript, which reads a thread's
 * messages whether or not the session is there (an event cannot outlive its
 * session: the foreign keys cascade).
 */
export async function footprintOf(stores: Stores, ids: string[]) {
  const footprint = {
    /** Sessions that exist. */
    threads: 0,
    /** Log entries: messages and events (of a session that does not exist, its transcript's messages). */
    messages: 0,
    /** Compaction and repair boundaries. */
    boundaries: 0,
    /** Repair evidence (getRepairs). */
    repairs: 0,
    /** Subsession edges to or from any of the sessions, each counted once. */
    edges: 0,
  };
  const edges = new Set<string>();
  for (const id of ids) {
    const meta = await stores.sessions.get(id);
    footprint.repairs += (await stores.messages.getRepairs(id)).length;
    for (const child of await stores.transcripts.getSubsessions(id)) edges.add(JSON.stringify([id, child]));
    if (!meta) {
      footprint.messages += (await stores.messages.getTranscript(id)).length;
      continue;
    }
    footprint.threads++;
    if (meta.parentId !== null) edges.add(JSON.stringify([meta.parentId, id]));
    footprint.messages += (await stores.sessions.load(id)).length;
    footprint.boundaries += (await exportedLines(stores, id)).filter(isBoundary).length;
  }
  footprint.edges = edges.size;
  return footprint;
}
