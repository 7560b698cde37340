import net from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A TCP proxy on loopback that can cut a connection path on demand: the tests' stand-in for a
 * database (or upstream) going away and coming back.
 */
export class FaultProxy {
  private server = net.createServer((client) => this.accept(client));
  private sockets = new Set<net.Socket>();
  private pairs = new Set<{ client: net.Socket; upstream: net.Socket }>();
  /** Connections accepted while blackholed: held open, connected to nothing. */
  private held = new Set<net.Socket>();
  private blocked = false;
  private blackholed = false;
  port = 0;

  constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {}

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  /** Resets every open connection and every new one until `restore()`. */
  block(): void {
    this.blocked = true;
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
    this.pairs.clear();
    this.held.clear();
  }

  /**
   * A network that swallows packets: open connections stay open but nothing passes either way,
   * new ones are accepted and never answered, until `restore()` (which lets everything through
   * again, what was held included). Unlike `block()`, nobody gets an error: only timeouts help.
   */
  blackhole(): void {
    this.blackholed = true;
    for (const { client, upstream } of this.pairs) {
      client.unpipe(upstream);
      upstream.unpipe(client);
      client.pause();
      upstream.pause();
    }
  }

  restore(): void {
    this.blocked = false;
    if (!this.blackholed) return;
    this.blackholed = false;
    for (const { client, upstream } of this.pairs) {
      client.pipe(upstream);
      upstream.pipe(client);
    }
    for (const client of this.held) this.connect(client);
    this.held.clear();
  }

  async stop(): Promise<void> {
    this.block();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(client: net.Socket): void {
    if (this.blocked) {
      client.destroy();
      return;
    }
    if (this.blackholed) {
      client.pause();
      this.held.add(client);
      this.sockets.add(client);
      client
        .on('error', () => client.destroy())
        .on('close', () => {
          this.held.delete(client);
          this.sockets.delete(client);
        });
      return;
    }
    this.connect(client);
  }

  private connect(client: net.Socket): void {
    const upstream = net.connect(this.targetPort, this.targetHost);
    const pair = { client, upstream };
    this.sockets.add(client).add(upstream);
    this.pairs.add(pair);
    const drop = (): void => {
      client.destroy();
      upstream.destroy();
      this.sockets.delete(client);
      this.sockets.delete(upstream);
      this.pairs.delete(pair);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.pipe(upstream).pipe(client);
  }
}
