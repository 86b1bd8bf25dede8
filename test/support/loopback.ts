// Fake network on loopback for the tests of servers that vanish: a server that does
// what it is told with each connection, and a proxy that can turn into a partition.
import { connect, createServer, type Socket } from 'node:net';

export interface Loopback {
  url: string;
  /** Stops listening and destroys every connection. */
  close(): Promise<void>;
}

/** A server on loopback whose connections `onSocket` handles; its url is `target`'s with this server's host and port. */
export async function loopbackServer(target: string, onSocket: (socket: Socket, keep: (socket: Socket) => void) => void): Promise<Loopback> {
  const sockets = new Set<Socket>();
  const keep = (socket: Socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
  };
  const server = createServer((socket) => {
    keep(socket);
    onSocket(socket, keep);
  });
  const port = await new Promise<number>((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)));
  const url = Object.assign(new URL(target), { hostname: '127.0.0.1', port: String(port) }).toString();
  return {
    url,
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => (server.listening ? server.close(() => resolve()) : resolve()));
    },
  };
}

/**
 * A proxy on loopback to `target`'s server; `freeze` makes it a network partition: nothing more passes either way,
 * no connection is closed, and a new one is accepted and hears nothing, as when a host vanishes without a reset.
 */
export async function partitionableProxy(target: string): Promise<Loopback & { freeze(): void }> {
  const { hostname, port } = new URL(target);
  let frozen = false;
  const proxy = await loopbackServer(target, (client, keep) => {
    if (frozen) return;
    const upstream = connect(Number(port), hostname);
    keep(upstream);
    for (const [from, to] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      from.on('data', (chunk) => void (frozen || to.write(chunk)));
      from.on('close', () => void (frozen || to.destroy()));
    }
  });
  return { ...proxy, freeze: () => void (frozen = true) };
}
