// Crash safety: a child process (test/fixtures/crash-worker.ts) appends,
// compacts, repairs, registers subsessions and deletes subtrees through
// StoreModule, and is SIGKILLed at a random moment, CRASH_KILLS times (default
// 30) on one SQLite file and on one PostgreSQL database that every run shares.
// After each kill the database must agree with the children's logs:
// acknowledged ⊆ stored ⊆ attempted, nothing stored twice, every thread's log
// numbered 1..last_seq without gaps, no orphan rows, no deleted session back,
// and (SQLite) a file that passes integrity_check and foreign_key_check.
//
// tsx runs the fixture in a child process of its own (node --import tsx/loader),
// so killing tsx alone would leave the worker running: each worker gets a
// process group of its own and the whole group is killed. The next worker boots
// while the previous run is checked, and starts writing only when told to; it
// writes each kind once (its warm-up) before its random writes, and the kill
// comes at a random moment of those.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeWith, freshPostgresUrl, POSTGRESQL, tempSqliteUrl } from '../support/databases.js';
import { ROOT } from '../support/processes.js';
import { storeApp, type InternalStoreApp } from '../support/store-app.js';

const TSX = join(ROOT, 'node_modules', '.bin', 'tsx');
/** The workers' log files. */
const LOG_DIR = mkdtempSync(join(tmpdir(), 'agent-store-crash-'));
afterAll(() => rmSync(LOG_DIR, { recursive: true, force: true }));
const WORKER = join(ROOT, 'test', 'fixtures', 'crash-worker.ts');
const KILLS = Number(process.env.CRASH_KILLS ?? 30);
const SHARED = 'shared';
const READY_TIMEOUT_MS = 30_000;
const ANSWER_TIMEOUT_MS = 30_000;
/** How many workers boot ahead of the one writing. */
const LOOKAHEAD = 2;

if (!Number.isSafeInteger(KILLS) || KILLS < 1) throw new Error(`CRASH_KILLS must be a positive integer, got ${process.env.CRASH_KILLS}`);

// ---------------------------------------------------------------- the worker

type Kind = 'append' | 'appendMany' | 'compaction' | 'repair' | 'addSubsession' | 'delete';
interface Line {
  op: 'ready' | 'warm' | 'attempt' | 'ack' | 'error';
  id: string;
  kind: Kind;
  thread?: string;
  contents?: string[];
  seqs?: number[];
  summary?: string;
  evidence?: string;
  source?: number;
  retained?: number;
  parent?: string;
  child?: string;
  root?: string;
  deleted?: number;
  name?: string;
  message?: string;
  unexpected?: boolean;
  /** An attempt of the worker's warm-up, before its random writes. */
  warmup?: boolean;
  /** Milliseconds since the worker started (set by the worker). */
  t: number;
  /** Where the line stands in the log of every run (set by the ledger). */
  at: number;
  run: number;
}

class Worker {
  readonly child: ChildProcessWithoutNullStreams;
  /** The worker's lines, written synchronously (see the worker): the ledger's source once it is dead. */
  readonly logPath: string;
  stdout = '';
  stderr = '';
  readonly closed: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  readonly ready: Promise<void>;
  #exited = false;

  constructor(
    url: string,
    readonly run: number,
  ) {
    // detached: a process group of its own, so that one kill reaches tsx and the node process it starts.
    this.logPath = join(LOG_DIR, `worker-${run}-${Date.now()}.jsonl`);
    this.child = spawn(TSX, ['--tsconfig', join(ROOT, 'tsconfig.json'), WORKER, url, String(run)], {
      cwd: ROOT,
      env: { ...process.env, CRASH_WORKER_LOG: this.logPath },
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
    });
    this.child.stdout.setEncoding('utf8');
    this.child.stderr.setEncoding('utf8');
    this.child.stderr.on('data', (chunk: string) => (this.stderr += chunk));
    this.closed = new Promise((resolve) =>
      this.child.on('close', (code, signal) => {
        this.#exited = true;
        resolve({ code, signal });
      }),
    );
    this.child.stdout.on('data', (chunk: string) => (this.stdout += chunk));
    this.ready = this.#printed('"op":"ready"', READY_TIMEOUT_MS, 'ready');
    // Awaited by the run; a worker killed unused must not be an unhandled rejection.
    this.ready.catch(() => {});
  }

  /** Resolves once stdout shows `pattern`; rejects when the worker exits first or `timeoutMs` passes. */
  #printed(pattern: string | RegExp, timeoutMs: number, what: string): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const seen = () => (typeof pattern === 'string' ? this.stdout.includes(pattern) : pattern.test(this.stdout));
      const timer = setTimeout(() => reject(new Error(`crash worker ${this.run} was not ${what} after ${timeoutMs} ms:\n${this.stderr}`)), timeoutMs);
      const check = () => {
        if (!seen()) return;
        clearTimeout(timer);
        this.child.stdout.off('data', check);
        resolve();
      };
      this.child.stdout.on('data', check);
      this.child.once('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
      void this.closed.then(() => {
        clearTimeout(timer);
        if (!seen()) reject(new Error(`crash worker ${this.run} exited before it was ${what}:\n${this.stderr}`));
      });
    });
  }

  /** Tells the worker to write; resolves once it has written each kind once (its warm-up), when its write paths are warm. */
  go(): Promise<void> {
    const answering = this.#printed('"op":"warm"', ANSWER_TIMEOUT_MS, 'warmed up');
    this.child.stdin.write('go\n');
    return answering;
  }

  /** SIGKILL to the worker's whole process group (only this worker's processes are in it). */
  kill(): void {
    if (this.#exited || this.child.pid === undefined) return;
    try {
      process.kill(-this.child.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// ---------------------------------------------------------------- the ledger

/** Everything every worker printed, in order. */
class Ledger {
  readonly attempts = new Map<string, Line>();
  readonly acks = new Map<string, Line>();
  readonly errors = new Map<string, Line>();
  /** Message content -> the attempt that carried it, and its index in the batch. */
  readonly contentOwner = new Map<string, { attempt: Line; index: number }>();
  /** Boundary summary -> the compaction or repair attempt. */
  readonly summaryOwner = new Map<string, Line>();
  readonly problems: string[] = [];
  cutLines = 0;
  #clock = 0;

  add(run: number, stdout: string): void {
    const lines = stdout.split('\n');
    // A kill can cut the last line short: no newline after it, so ignore it.
    if (lines.pop() !== '') this.cutLines++;
    for (const text of lines) {
      let line: Line;
      try {
        line = { ...(JSON.parse(text) as Line), at: ++this.#clock, run };
      } catch {
        this.problems.push(`run ${run}: a complete stdout line is not JSON: ${text.slice(0, 200)}`);
        continue;
      }
      if (line.op === 'ready' || line.op === 'warm') continue;
      if (line.op === 'attempt') {
        if (this.attempts.has(line.id)) this.problems.push(`run ${run}: attempt ${line.id} announced twice`);
        this.attempts.set(line.id, line);
        line.contents?.forEach((content, index) => this.contentOwner.set(content, { attempt: line, index }));
        if (line.summary !== undefined) this.summaryOwner.set(line.summary, line);
        continue;
      }
      if (!this.attempts.has(line.id)) this.problems.push(`run ${run}: ${line.op} of ${line.id} without an attempt before it`);
      if (line.op === 'ack') this.acks.set(line.id, line);
      else if (line.op === 'error') {
        this.errors.set(line.id, line);
        if (line.unexpected) this.problems.push(`run ${run}: ${line.kind} ${line.id} failed unexpectedly: ${line.name}: ${line.message}`);
      } else this.problems.push(`run ${run}: unknown line ${text.slice(0, 200)}`);
    }
  }

  ackedOf(kind: Kind): Line[] {
    return [...this.acks.values()].filter((line) => line.kind === kind);
  }
}

// ---------------------------------------------------------------- the checks

interface Snapshot {
  threads: { id: string; lastSeq: number }[];
  messages: { threadId: string; seq: number; role: string | null; eventType: string | null; content: unknown }[];
  boundaries: {
    threadId: string;
    seq: number;
    kind: string;
    cutSeq: number;
    messages: unknown;
    messageCount: number;
    sourceCount: number;
    retainedCount: number | null;
  }[];
  repairs: { threadId: string; seq: number; message: unknown }[];
  edges: { id: number; parentId: string; childId: string }[];
  tombstones: { id: string }[];
}

/** The rows as the tables hold them, their JSON text columns parsed. */
async function snapshot(store: InternalStoreApp): Promise<Snapshot> {
  return store.db.read(async (tx) => ({
    threads: await tx.prisma.agentThread.findMany({ select: { id: true, lastSeq: true } }),
    messages: (await tx.prisma.agentMessage.findMany({ select: { threadId: true, seq: true, role: true, eventType: true, content: true } })).map((m) => ({
      ...m,
      content: JSON.parse(m.content),
    })),
    boundaries: (
      await tx.prisma.agentBoundary.findMany({
        select: { threadId: true, seq: true, kind: true, cutSeq: true, messages: true, messageCount: true, sourceCount: true, retainedCount: true },
      })
    ).map((b) => ({ ...b, messages: JSON.parse(b.messages) })),
    repairs: (await tx.prisma.agentRepair.findMany({ select: { threadId: true, seq: true, message: true } })).map((r) => ({
      ...r,
      message: JSON.parse(r.message),
    })),
    edges: await tx.prisma.agentSubsession.findMany({ select: { id: true, parentId: true, childId: true } }),
    tombstones: await tx.prisma.agentTombstone.findMany({ select: { id: true } }),
  }));
}

const key = (threadId: string, seq: number) => `${threadId}#${seq}`;
const contentOf = (message: unknown) => (message as { content?: unknown } | null)?.content;

/** Every invariant the kills must not break; returns what is broken, at most a few lines per kind. */
function verify(ledger: Ledger, db: Snapshot): string[] {
  const problems: string[] = [];
  const report = (() => {
    const perKind = new Map<string, number>();
    return (kind: string, text: string) => {
      const n = (perKind.get(kind) ?? 0) + 1;
      perKind.set(kind, n);
      if (n <= 5) problems.push(`${kind}: ${text}`);
      else if (n === 6) problems.push(`${kind}: … (more)`);
    };
  })();

  const threads = new Map(db.threads.map((t) => [t.id, t.lastSeq]));
  const tombstoned = new Set(db.tombstones.map((t) => t.id));
  const messageAt = new Map(db.messages.map((m) => [key(m.threadId, m.seq), m]));
  const boundaryAt = new Map(db.boundaries.map((b) => [key(b.threadId, b.seq), b]));
  const repairAt = new Map(db.repairs.map((r) => [key(r.threadId, r.seq), r]));
  const parentOf = new Map(db.edges.map((e) => [e.childId, e.parentId]));
  const erred = (attempt: Line) => ledger.errors.has(attempt.id);

  // No deleted session is back; no row belongs to a missing thread.
  for (const id of threads.keys()) if (tombstoned.has(id)) report('deleted session back', `agent_thread ${id} is tombstoned`);
  for (const m of db.messages) if (!threads.has(m.threadId)) report('orphan', `agent_message ${key(m.threadId, m.seq)} has no thread`);
  for (const b of db.boundaries) if (!threads.has(b.threadId)) report('orphan', `agent_boundary ${key(b.threadId, b.seq)} has no thread`);
  for (const r of db.repairs) {
    if (!threads.has(r.threadId)) report('orphan', `agent_repair ${key(r.threadId, r.seq)} has no thread`);
    if (!boundaryAt.has(key(r.threadId, r.seq))) report('orphan', `agent_repair ${key(r.threadId, r.seq)} has no boundary`);
  }
  for (const e of db.edges) {
    if (!threads.has(e.parentId)) report('orphan', `agent_subsession ${e.parentId} -> ${e.childId}: no parent thread`);
    if (!threads.has(e.childId)) report('orphan', `agent_subsession ${e.parentId} -> ${e.childId}: no child thread`);
  }

  // Every thread that exists was written by an attempt that did not fail.
  const touched = new Set<string>([SHARED]);
  for (const a of ledger.attempts.values()) {
    if (erred(a)) continue;
    for (const id of [a.thread, a.parent, a.child]) if (id !== undefined) touched.add(id);
  }
  for (const id of threads.keys()) if (!touched.has(id)) report('stored but not attempted', `agent_thread ${id}`);

  // Per thread, messages ∪ boundaries are numbered exactly 1..last_seq.
  const seqsOf = new Map<string, number[]>();
  for (const row of [...db.messages, ...db.boundaries]) seqsOf.set(row.threadId, [...(seqsOf.get(row.threadId) ?? []), row.seq]);
  for (const [id, lastSeq] of threads) {
    const seqs = (seqsOf.get(id) ?? []).sort((a, b) => a - b);
    const expected = Array.from({ length: lastSeq }, (_, i) => i + 1);
    if (seqs.length !== expected.length || seqs.some((seq, i) => seq !== expected[i])) {
      const duplicates = seqs.filter((seq, i) => seqs[i - 1] === seq);
      const present = new Set(seqs);
      const gaps = expected.filter((seq) => !present.has(seq));
      report(
        'sequence',
        `thread ${id}: last_seq ${lastSeq}, ${seqs.length} rows, gaps [${gaps.slice(0, 10)}], duplicates [${duplicates.slice(0, 10)}], beyond [${seqs.filter((s) => s > lastSeq).slice(0, 10)}]`,
      );
    }
  }

  // Stored messages: attempted, in the attempted thread, once, by an attempt that did not fail.
  const seenContent = new Map<string, string>();
  for (const m of db.messages) {
    const where = key(m.threadId, m.seq);
    if (m.eventType !== null || typeof m.content !== 'string') {
      report('stored but not attempted', `message ${where} is not one of the workers' (${JSON.stringify(m.content).slice(0, 80)})`);
      continue;
    }
    const owner = ledger.contentOwner.get(m.content);
    if (!owner) report('stored but not attempted', `message ${where} "${m.content}"`);
    else {
      if (owner.attempt.thread !== m.threadId) report('wrong thread', `"${m.content}" attempted on ${owner.attempt.thread}, stored at ${where}`);
      if (erred(owner.attempt))
        report('failed write stored', `"${m.content}" of ${owner.attempt.id} (${ledger.errors.get(owner.attempt.id)?.name}) stored at ${where}`);
      const role = owner.attempt.kind === 'append' || owner.index % 2 === 0 ? 'user' : 'assistant';
      if (m.role !== role) report('wrong role', `${where} "${m.content}" has role ${m.role}, attempted ${role}`);
    }
    const previous = seenContent.get(m.content);
    if (previous) report('stored twice', `"${m.content}" at ${previous} and ${where}`);
    seenContent.set(m.content, where);
  }

  // Acknowledged messages are stored once, at the acknowledged seq, unless their session was deleted.
  for (const ack of [...ledger.ackedOf('append'), ...ledger.ackedOf('appendMany')]) {
    const attempt = ledger.attempts.get(ack.id)!;
    if (JSON.stringify(ack.contents) !== JSON.stringify(attempt.contents))
      report('acknowledged', `${ack.id} returned ${JSON.stringify(ack.contents)} for ${JSON.stringify(attempt.contents)}`);
    const seqs = ack.seqs ?? [];
    if (seqs.some((seq, i) => i > 0 && seq !== seqs[i - 1] + 1)) report('acknowledged', `${ack.id} returned seqs [${seqs}], not consecutive`);
    if (tombstoned.has(ack.thread!)) continue;
    ack.contents?.forEach((content, i) => {
      const stored = messageAt.get(key(ack.thread!, seqs[i]));
      if (stored?.content !== content) {
        report(
          'acknowledged but lost',
          `${ack.id} "${content}" acknowledged at ${key(ack.thread!, seqs[i])}, stored there: ${JSON.stringify(stored?.content)}; stored at ${seenContent.get(content) ?? 'nowhere'}`,
        );
      }
    });
  }

  // appendMany is all or nothing, at consecutive seqs in order (acknowledged or not).
  for (const attempt of ledger.attempts.values()) {
    if (attempt.kind !== 'appendMany' || tombstoned.has(attempt.thread!)) continue;
    const where = attempt.contents!.map((content) => seenContent.get(content));
    const stored = where.filter((w) => w !== undefined);
    if (stored.length !== 0 && stored.length !== where.length)
      report('appendMany not atomic', `${attempt.id}: ${stored.length} of ${where.length} stored (${where})`);
    if (stored.length === where.length && where.length > 0) {
      const seqs = where.map((w) => Number(w!.split('#').pop()));
      if (seqs.some((seq, i) => i > 0 && seq !== seqs[i - 1] + 1)) report('appendMany not contiguous', `${attempt.id} stored at seqs [${seqs}]`);
    }
  }

  // Boundaries: attempted, once, as attempted; every acknowledged one is there.
  const boundaryOfSummary = new Map<string, string>();
  for (const b of db.boundaries) {
    const where = key(b.threadId, b.seq);
    const list = Array.isArray(b.messages) ? (b.messages as unknown[]) : [];
    if (!Array.isArray(b.messages) || b.messageCount !== list.length)
      report('boundary', `${where}: message_count ${b.messageCount} for ${JSON.stringify(b.messages).slice(0, 80)}`);
    if (!(b.cutSeq >= 0 && b.cutSeq < b.seq)) report('boundary', `${where}: cut_seq ${b.cutSeq} not before its seq`);
    if (b.cutSeq > 0 && !messageAt.has(key(b.threadId, b.cutSeq))) report('boundary', `${where}: cut_seq ${b.cutSeq} is not a stored message`);
    const summary = contentOf(list[0]);
    const attempt = typeof summary === 'string' ? ledger.summaryOwner.get(summary) : undefined;
    if (!attempt) {
      report('stored but not attempted', `boundary ${where} starts with ${JSON.stringify(list[0]).slice(0, 80)}`);
      continue;
    }
    if (attempt.thread !== b.threadId) report('wrong thread', `boundary "${summary}" attempted on ${attempt.thread}, stored at ${where}`);
    if (erred(attempt)) report('failed write stored', `boundary "${summary}" of ${attempt.id} (${ledger.errors.get(attempt.id)?.name}) stored at ${where}`);
    if (b.kind !== attempt.kind) report('boundary', `${where}: kind ${b.kind}, attempted ${attempt.kind}`);
    if (b.sourceCount !== attempt.source) report('boundary', `${where}: source_count ${b.sourceCount}, attempted ${attempt.source}`);
    if (b.retainedCount !== (attempt.kind === 'compaction' ? attempt.retained : null))
      report('boundary', `${where}: retained_count ${b.retainedCount}, attempted ${attempt.retained}`);
    const repair = repairAt.get(where);
    if (attempt.kind === 'repair' && contentOf(repair?.message) !== attempt.evidence)
      report('repair evidence', `${where}: ${JSON.stringify(repair?.message)} for "${attempt.evidence}"`);
    if (attempt.kind === 'compaction' && repair) report('repair evidence', `compaction ${where} has a repair row`);
    const previous = boundaryOfSummary.get(summary as string);
    if (previous) report('stored twice', `boundary "${summary}" at ${previous} and ${where}`);
    boundaryOfSummary.set(summary as string, where);
  }
  for (const ack of [...ledger.ackedOf('compaction'), ...ledger.ackedOf('repair')]) {
    if (!tombstoned.has(ack.thread!) && !boundaryOfSummary.has(ack.summary!))
      report('acknowledged but lost', `${ack.kind} ${ack.id} "${ack.summary}" on ${ack.thread}`);
  }

  // Subsession edges: attempted, no cycle; acknowledged ones stay unless an end was deleted.
  const attemptedEdges = new Set([...ledger.attempts.values()].filter((a) => a.kind === 'addSubsession' && !erred(a)).map((a) => `${a.parent}->${a.child}`));
  for (const e of db.edges) {
    if (!attemptedEdges.has(`${e.parentId}->${e.childId}`)) report('stored but not attempted', `edge ${e.parentId} -> ${e.childId}`);
    const seen = new Set([e.childId]);
    for (let at: string | undefined = e.parentId; at !== undefined; at = parentOf.get(at)) {
      if (seen.has(at)) {
        report('cycle', `through ${e.parentId} -> ${e.childId}`);
        break;
      }
      seen.add(at);
    }
  }
  for (const ack of ledger.ackedOf('addSubsession')) {
    if (tombstoned.has(ack.parent!) || tombstoned.has(ack.child!)) continue;
    if (parentOf.get(ack.child!) !== ack.parent)
      report('acknowledged but lost', `edge ${ack.parent} -> ${ack.child} (${ack.id}); stored parent: ${parentOf.get(ack.child!)}`);
  }

  // An acknowledged delete took its root and every session acknowledged below it before the delete began.
  const ackedEdges = ledger.ackedOf('addSubsession');
  for (const ack of ledger.ackedOf('delete')) {
    if (!ack.deleted) continue; // 0: the root did not exist (never written yet, or deleted before)
    const began = ledger.attempts.get(ack.id)!.at;
    const subtree = new Set([ack.root!]);
    for (let grew = true; grew;) {
      grew = false;
      for (const edge of ackedEdges) {
        if (edge.at < began && subtree.has(edge.parent!) && !subtree.has(edge.child!)) {
          subtree.add(edge.child!);
          grew = true;
        }
      }
    }
    for (const id of subtree) {
      if (!tombstoned.has(id)) report('acknowledged delete undone', `${ack.id} deleted ${ack.root} (${ack.deleted} sessions) but ${id} has no tombstone`);
      if (threads.has(id)) report('acknowledged delete undone', `${ack.id} deleted ${ack.root} but agent_thread ${id} exists`);
    }
  }

  // Every tombstone is a delete's root or below a tombstoned parent through an attempted edge.
  const deleteRoots = new Set([...ledger.attempts.values()].filter((a) => a.kind === 'delete' && !erred(a)).map((a) => a.root));
  const attemptedParents = new Map<string, Set<string>>();
  for (const a of ledger.attempts.values()) {
    if (a.kind === 'addSubsession' && !erred(a)) attemptedParents.set(a.child!, new Set([...(attemptedParents.get(a.child!) ?? []), a.parent!]));
  }
  for (const id of tombstoned) {
    const explained = deleteRoots.has(id) || [...(attemptedParents.get(id) ?? [])].some((parent) => tombstoned.has(parent));
    if (!explained) report('tombstone not attempted', id);
  }
  return problems;
}

async function sqliteChecks(store: InternalStoreApp): Promise<string[]> {
  const problems: string[] = [];
  const integrity = await store.db.client.$queryRawUnsafe<{ integrity_check: string }[]>('PRAGMA integrity_check');
  if (integrity.length !== 1 || integrity[0].integrity_check !== 'ok') problems.push(`integrity_check: ${JSON.stringify(integrity).slice(0, 500)}`);
  const foreignKeys = await store.db.client.$queryRawUnsafe<unknown[]>('PRAGMA foreign_key_check');
  if (foreignKeys.length > 0)
    problems.push(`foreign_key_check: ${JSON.stringify(foreignKeys, (_, v) => (typeof v === 'bigint' ? Number(v) : v)).slice(0, 500)}`);
  return problems;
}

/** PostgreSQL: the killed worker's server processes are gone (their transactions rolled back or committed). */
async function postgresSettled(store: InternalStoreApp, run: number, waitMs = 10_000): Promise<string[]> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const rows = await store.db.client.$queryRawUnsafe<{ n: bigint | number }[]>(
      'SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = $1',
      applicationName(run),
    );
    if (Number(rows[0].n) === 0) return [];
    if (Date.now() > deadline) return [`the server still runs ${rows[0].n} connection(s) of killed worker ${run} after ${waitMs} ms`];
    await sleep(20);
  }
}

const applicationName = (run: number) => `crash_worker_${run}`;

// ---------------------------------------------------------------- the runs

interface Target {
  label: string;
  provider: 'sqlite' | 'postgresql';
  url(): Promise<string>;
}

function crashSuite(target: Target) {
  let store: InternalStoreApp;
  let url: string;

  beforeAll(async () => {
    url = await target.url();
    store = await storeApp({ url }); // migrates: the workers do not
  });
  afterAll(() => store?.close());

  test(
    `${KILLS} SIGKILLs of a worker mid-write leave every acknowledged write, nothing unattempted, contiguous logs and no orphans`,
    async () => {
      const ledger = new Ledger();
      const workerUrl = (run: number) => {
        if (target.provider === 'sqlite') return url;
        const withName = new URL(url);
        withName.searchParams.set('application_name', applicationName(run));
        return withName.toString();
      };
      const started = Date.now();
      const time = { warming: 0, writing: 0, booting: 0, checking: 0 };
      // Workers boot ahead (they write nothing before "go") while earlier ones write and are checked.
      const booted: Worker[] = [];
      const bootUpTo = (run: number) => {
        for (let n = booted.length === 0 ? 1 : booted.at(-1)!.run + 1; n <= Math.min(run, KILLS); n++) booted.push(new Worker(workerUrl(n), n));
      };
      let worker: Worker | undefined;
      try {
        for (let run = 1; run <= KILLS; run++) {
          bootUpTo(run + LOOKAHEAD);
          worker = booted.shift()!;
          const booting = Date.now();
          await worker!.ready;
          time.booting += Date.now() - booting;
          const answering = worker!.go();
          // The kill comes at a random moment after the warm-up: a fresh process's first write of each kind is slow
          // (code loaded and queries compiled on first use), and on a loaded machine a window after "go", or after
          // the first answer (one kind warm), would often cut only those, and a kind could go unacknowledged.
          const warming = Date.now();
          await answering;
          time.warming += Date.now() - warming;
          const writing = Date.now();
          const windowMs = 100 + Math.floor(Math.random() * 501);
          await sleep(windowMs);
          time.writing += Date.now() - writing;
          // Once: the workers' connections are the ones the settle check waits for.
          if (target.provider === 'postgresql' && run === 1) expect((await postgresSettled(store, run, 0)).length).toBe(1);
          worker!.kill();
          const exit = await worker!.closed;

          const checking = Date.now();
          const problems: string[] = [];
          if (exit.signal !== 'SIGKILL')
            problems.push(`worker ${run} ended by itself (code ${exit.code}, signal ${exit.signal}) before the kill:\n${worker!.stderr}`);
          const before = ledger.problems.length;
          const lines = readFileSync(worker!.logPath, 'utf8');
          ledger.add(run, lines);
          problems.push(...ledger.problems.slice(before));
          if (target.provider === 'postgresql') problems.push(...(await postgresSettled(store, run)));
          problems.push(...verify(ledger, await snapshot(store)));
          if (target.provider === 'sqlite') problems.push(...(await sqliteChecks(store)));
          time.checking += Date.now() - checking;
          if (problems.length > 0) {
            const tail = lines.split('\n').slice(-15).join('\n');
            throw new Error(
              `[${target.label}] after kill ${run} of ${KILLS} (${windowMs} ms of writes):\n- ${problems.join('\n- ')}\n\n` +
                `last lines of worker ${run}:\n${tail}\nstderr:\n${worker!.stderr.slice(-2000)}`,
            );
          }
        }
      } finally {
        const left = [worker, ...booted].filter((w) => w !== undefined);
        for (const w of left) w.kill();
        await Promise.all(left.map((w) => w.closed));
      }

      const allAcked = [...ledger.acks.values()];
      const isWarmup = (line: Line) => ledger.attempts.get(line.id)!.warmup === true;
      // The random writes': the warm-up's writes are checked like them, but not counted here.
      const acked = allAcked.filter((ack) => !isWarmup(ack));
      const warmups = [...ledger.attempts.values()].filter((attempt) => attempt.warmup);
      const db = await snapshot(store);
      const inFlight = ledger.attempts.size - allAcked.length - ledger.errors.size;
      const slowestWarmup = allAcked
        .filter(isWarmup)
        .map((ack) => ({ kind: ack.kind, ms: ack.t - ledger.attempts.get(ack.id)!.t }))
        .sort((a, b) => b.ms - a.ms)[0];
      const slowest = acked.map((ack) => ({ kind: ack.kind, ms: ack.t - ledger.attempts.get(ack.id)!.t })).sort((a, b) => b.ms - a.ms)[0];
      console.log(
        `[${target.label}] ${KILLS} kills in ${((Date.now() - started) / 1000).toFixed(1)} s, ${(time.warming / 1000).toFixed(1)} s of warm-ups, ${(time.writing / 1000).toFixed(1)} s of writes, ${(time.booting / 1000).toFixed(1)} s waiting for boots, ${(time.checking / 1000).toFixed(1)} s of checks: ` +
          `${warmups.length} warm-up writes (slowest: ${slowestWarmup?.kind} ${slowestWarmup?.ms} ms), then ${ledger.attempts.size - warmups.length} attempts, ${acked.length} acknowledged (slowest: ${slowest?.kind} ${slowest?.ms} ms), ` +
          `${ledger.errors.size} refused, ${inFlight} cut by a kill, ${ledger.cutLines} stdout lines cut; ` +
          `stored: ${db.threads.length} threads, ${db.messages.length} messages, ${db.boundaries.length} boundaries, ${db.edges.length} edges, ${db.tombstones.length} tombstones; ` +
          `acknowledged: ${['append', 'appendMany', 'compaction', 'repair', 'addSubsession', 'delete'].map((k) => `${k} ${acked.filter((a) => a.kind === k).length}`).join(', ')}`,
      );
      // A run of the default size exercised what it claims to: every kind of write was acknowledged (in the random
      // writes, the warm-ups aside), and kills cut writes.
      if (KILLS >= 10) {
        for (const kind of ['append', 'appendMany', 'compaction', 'addSubsession', 'delete'] as const)
          expect(acked.filter((a) => a.kind === kind).length).toBeGreaterThan(0);
        expect(inFlight).toBeGreaterThan(0);
      }
      // A kill takes its boot (overlapped), its warm-up (1 to 2 s on a loaded 2-core machine), its window and its checks:
      // some 4 s under a full suite's load; a timeout, not a measure, so it leaves room.
    },
    20_000 + KILLS * 6_000,
  );
}

describe('crash safety', () => {
  describe('[SQLite]', () => crashSuite({ label: 'SQLite', provider: 'sqlite', url: async () => tempSqliteUrl('crash.db') }));
  describeWith(POSTGRESQL.available, 'PostgreSQL unavailable')('[PostgreSQL]', () =>
    crashSuite({ label: 'PostgreSQL', provider: 'postgresql', url: () => freshPostgresUrl() }),
  );
});
