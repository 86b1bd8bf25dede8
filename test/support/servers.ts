// A test's way to the run's shared servers: the url of one (or its urls, joined
// by commas), from the variable naming yours, else from the run's broker, which
// starts it the first time any test asks.
import { request } from 'node:http';
import { BROKER_SOCKET_ENV, SHARED_SERVERS, type SharedServerName } from './shared-servers.js';

const asked = new Map<SharedServerName, Promise<string>>();

export function sharedServer(name: SharedServerName): Promise<string> {
  const yours = process.env[SHARED_SERVERS[name].env];
  if (yours !== undefined) return Promise.resolve(yours);
  let answer = asked.get(name);
  if (!answer) {
    answer = askBroker(name);
    asked.set(name, answer);
  }
  return answer;
}

function askBroker(name: SharedServerName): Promise<string> {
  const socketPath = process.env[BROKER_SOCKET_ENV];
  if (!socketPath) return Promise.reject(new Error(`${BROKER_SOCKET_ENV} is not set: run the tests through jest, whose global setup starts the broker`));
  return new Promise((resolve, reject) => {
    // agent: false, a connection per question: a kept-alive one can meet the broker closing it (EPIPE).
    request({ socketPath, path: `/${name}`, agent: false }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => (response.statusCode === 200 ? resolve(body) : reject(new Error(body))));
      response.on('error', reject);
    })
      .on('error', reject)
      .end();
  });
}
