// Two processes writing to one SQLite file at once lose nothing.
import { runFixture } from '../support/processes.js';
import { storeApp } from '../support/store-app.js';

test('two processes x 100 concurrent appends give 200 contiguous unique sequence numbers and every acknowledged message', async () => {
  const { url, messages, close } = await storeApp();
  try {
    const runs = await Promise.all([
      runFixture('append-worker.ts', [url, 'shared', '100', 'p1']),
      runFixture('append-worker.ts', [url, 'shared', '100', 'p2']),
    ]);
    for (const run of runs) expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
    const acks = runs.flatMap((run) =>
      run.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { seq: number; content: string }),
    );
    expect(acks).toHaveLength(200);

    const transcript = await messages.getTranscript('shared');
    expect(transcript.map((m) => m.seq)).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
    for (const ack of acks) expect(transcript[ack.seq - 1].content).toBe(ack.content);
  } finally {
    await close();
  }
});

test('two processes x 25 concurrent addSubsession on one parent leave exactly 50 edges', async () => {
  const { url, transcripts, close } = await storeApp();
  try {
    const runs = await Promise.all([
      runFixture('subsession-worker.ts', [url, 'parent', '25', 'p1']),
      runFixture('subsession-worker.ts', [url, 'parent', '25', 'p2']),
    ]);
    for (const run of runs) expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
    const acknowledged = runs.flatMap((run) => run.stdout.trim().split('\n'));
    expect(new Set(await transcripts.getSubsessions('parent'))).toEqual(new Set(acknowledged));
    expect(acknowledged).toHaveLength(50);
  } finally {
    await close();
  }
});
