// The messages every target appends and the seeded threads hold: about 200
// bytes of JSON each once stored, users and assistants taking turns.
import type { BenchMessage } from './targets/target.js';

export const FILLER =
  'The agent looked up three sources, compared their figures and wrote a short answer with the numbers it could verify, leaving out the rest and naming each source by its title.';

/** The i-th message of a thread (1-based): odd ones are the user's. */
export function benchMessage(i: number): BenchMessage {
  return { role: i % 2 === 1 ? 'user' : 'assistant', content: `message ${i} ${FILLER}` };
}

export const SUMMARY: BenchMessage = { role: 'assistant', content: `Summary of the conversation so far. ${FILLER}` };
