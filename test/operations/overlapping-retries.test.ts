// Exactly once under overlapping retries, across processes: 16 writers in 3
// processes append, in each of 50 rounds, windows of 20 message ids that
// overlap (writer w sends m(2w)..m(2w+19), the same content for the same id) to
// the round's new thread, all at once. Every call must store exactly its new
// messages and return its whole batch as stored, with no conflict error (the
// content is the same), and the thread must hold each id once, at seqs 1..n.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { eachDatabase } from '../support/databases.js';
import { ROOT } from '../support/processes.js';
import { storeApp } from '../support/store-app.js';

const ROUNDS = 50;
/** The writers of each process: 16 in all. */
const PROCESSES = [6, 5, 5];
const WRITERS = PROCESSES.reduce((sum, n) => sum + n, 0);
/** Every id some writer sends: m0 to m(2 * (WRITERS - 1) + 19). */
const IDS = Array.from({ length: 2 * (WRITERS - 1) + 20 }, (_, i) => `m${i}`);

type Answer = { round: number; writer: number; stored?: [string, number, string][]; error?: string } | { done: number } | { ready: true };

/** A worker process and the answers it printed, one JSON line each. */
class OverlapWorker {
  readonly child: ChildProcessWithoutNullStreams;
  readonly #waiting: { resolve: (answer: Answer) => void; reject: (error: Error) => void }[] = [];
  readonly #answers: Answer[] = [];
  #exited: Error | undefined;
  stderr = '';

  constructor(url: string, first: number, count: number) {
    this.child = spawn(
      join(ROOT, 'node_modules', '.bin', 'tsx'),
      ['--tsconfig', join(ROOT, 'tsconfig.json'), join(ROOT, 'test', 'fixtures', 'overlap-worker.ts'), url, String(first), String(count)],
      {
        cwd: ROOT,
        stdio: ['pipe', 'pipe', 'pipe'],
      },
    );
    this.child.stderr.on('data', (chunk) => (this.stderr += chunk));
    createInterface({ input: this.child.stdout }).on('line', (line) => {
      const answer = JSON.parse(line) as Answer;
      const waiting = this.#waiting.shift();
      if (waiting) waiting.resolve(answer);
      else this.#answers.push(answer);
    });
    // One listener for the life of the process: whatever waits for an answer then fails.
    this.child.once('exit', (code) => {
      this.#exited = new Error(`overlap worker exited (code ${code}):\n${this.stderr}`);
      for (const waiting of this.#waiting.splice(0)) waiting.reject(this.#exited);
    });
  }

  next(): Promise<Answer> {
    const answer = this.#answers.shift();
    if (answer) return Promise.resolve(answer);
    if (this.#exited) return Promise.reject(this.#exited);
    return new Promise((resolve, reject) => this.#waiting.push({ resolve, reject }));
  }

  /** Runs one round; resolves with its writers' answers once it printed done. */
  async round(round: number): Promise<Answer[]> {
    this.child.stdin.write(`${round}\n`);
    const answers: Answer[] = [];
    for (let answer = await this.next(); !('done' in answer); answer = await this.next()) answers.push(answer);
    return answers;
  }

  async close(): Promise<void> {
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.stdin.end();
    if (this.child.exitCode === null && this.child.signalCode === null) await exited;
  }
}

eachDatabase((database) => {
  test(`${WRITERS} writers in ${PROCESSES.length} processes, ${ROUNDS} rounds of overlapping appendMany with the same ids: every call returns its batch as stored, each id is stored once`, async () => {
    const url = await database.freshUrl();
    const store = await storeApp({ url }); // migrates: the workers do not
    let first = 0;
    const workers = PROCESSES.map((count) => {
      const worker = new OverlapWorker(url, first, count);
      first += count;
      return worker;
    });
    try {
      for (const worker of workers) expect(await worker.next()).toEqual({ ready: true });
      for (let round = 0; round < ROUNDS; round++) {
        const answers = (await Promise.all(workers.map((worker) => worker.round(round)))).flat() as Extract<Answer, { round: number }>[];
        expect(answers.filter((answer) => answer.error !== undefined)).toEqual([]);
        expect(answers.map((answer) => answer.writer).sort((x, y) => x - y)).toEqual(Array.from({ length: WRITERS }, (_, w) => w));
        const transcript = await store.messages.getTranscript(`round-${round}`);
        expect(transcript.map((message) => message.seq)).toEqual(IDS.map((_, i) => i + 1));
        expect(transcript.map((message) => message.id).sort()).toEqual([...IDS].sort());
        const stored = new Map(transcript.map((message) => [message.id, [message.id, message.seq, message.content]]));
        for (const answer of answers) {
          expect(answer.stored!.map(([id]) => id)).toEqual(Array.from({ length: 20 }, (_, i) => `m${2 * answer.writer + i}`));
          expect(answer.stored).toEqual(answer.stored!.map(([id]) => stored.get(id)));
        }
      }
    } finally {
      await Promise.all(workers.map((worker) => worker.close()));
      await store.close();
    }
  }, 180_000);
});
