// A loopback TCP proxy in front of the external PostgreSQL, to simulate outages of a server other
// developers and suites share: the proxy is cut, never the server.
import net from 'node:net';

/** A TCP proxy to the external PostgreSQL that can be cut (connections dropped, port closed) and restored. */
export class CuttableProxy {
  private server: net.Server | null = null;
  private readonly sockets = new Set<net.Socket>();
  port = 0;

  constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {}

  /** When set, new connections are accepted and then left hanging (a network black hole). */
  blackHole = false;

  async start(): Promise<void> {
    this.server = net.createServer((client) => {
      if (this.blackHole) {
        this.sockets.add(client);
        client.on('close', () => this.sockets.delete(client));
        client.on('error', () => client.destroy());
        return;
      }
      const upstream = net.connect(this.targetPort, this.targetHost);
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on('close', () => this.sockets.delete(s));
        s.on('error', () => {
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', reject);
      this.server!.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.port = (this.server.address() as net.AddressInfo).port;
  }

  /** Drops the open connections; new ones are accepted but never answered. */
  hang(): void {
    this.blackHole = true;
    for (const s of this.sockets) s.destroy();
  }

  unhang(): void {
    this.blackHole = false;
    for (const s of this.sockets) s.destroy();
  }

  async cut(): Promise<void> {
    const closed = new Promise<void>((r) => this.server!.close(() => r()));
    for (const s of this.sockets) s.destroy();
    await closed;
    this.server = null;
  }

  /** Listens again on the same port (no-op while listening). */
  async restore(): Promise<void> {
    if (!this.server) await this.start();
  }

  async stop(): Promise<void> {
    if (this.server) await this.cut();
  }
}
