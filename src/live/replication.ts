import { randomUUID } from 'node:crypto';
import type { Logger } from '../logger.js';
import type { ChangeBus } from '../redis/change-bus.js';
import type { BundlesRegistry } from './bundles-registry.js';

/**
 * Keeps this instance's live world in step with the other instances of a deployment. A bundle
 * written here is announced on the change bus; a bundle or server written on another instance is
 * re-read here (the registry, the list_changed of this instance's sessions; the server's upstream
 * connection and catalog entry). A change applied from another instance is not announced again.
 * Changes are applied one at a time, in the order announced.
 */
export interface ReplicationDeps {
  bus: ChangeBus;
  registry: BundlesRegistry;
  /** Re-reads one bundle another instance wrote, into the registry. */
  rereadBundle(bundleId: string): Promise<void>;
  /** Reconnects (or drops) one server another instance wrote, and re-reads its catalog entry. */
  rereadServer(serverId: string): Promise<void>;
  logger: Logger;
}

export class Replication {
  /** Tells this instance's announcements from the others' (its own echo is ignored). */
  readonly instanceId = randomUUID();
  private readonly stops: (() => void)[] = [];
  private serverChanges: Promise<void> = Promise.resolve();

  constructor(private readonly deps: ReplicationDeps) {
    const { bus, registry } = deps;
    this.stops.push(
      registry.onChange((change) => {
        if (!change.remote) bus.publish({ kind: 'bundle', bundleId: change.bundleId, from: this.instanceId });
      }),
    );
    this.stops.push(
      bus.subscribe((m) => {
        if (m.kind !== 'bundle' || m.from === this.instanceId) return;
        const bundleId = m.bundleId;
        // The bundles service applies them one at a time, in the order announced.
        return deps.rereadBundle(bundleId).catch((err: unknown) => this.warn({ bundleId }, err, 'bundle'));
      }),
    );
    this.stops.push(
      bus.subscribe((m) => {
        if (m.kind !== 'server' || m.from === this.instanceId) return;
        const serverId = m.serverId;
        this.serverChanges = this.serverChanges
          .then(() => deps.rereadServer(serverId))
          .catch((err: unknown) => this.warn({ serverId }, err, 'server'));
        return this.serverChanges;
      }),
    );
  }

  /** Announces a server written on this instance, so the others re-read it. */
  announceServer(serverId: string): void {
    this.deps.bus.publish({ kind: 'server', serverId, from: this.instanceId });
  }

  close(): void {
    for (const stop of this.stops.splice(0)) stop();
  }

  private warn(subject: Record<string, string>, err: unknown, what: string): void {
    this.deps.logger.warn(
      { ...subject, reason: err instanceof Error ? err.message.slice(0, 200) : 'unknown' },
      `could not apply a ${what} change of another instance`,
    );
  }
}
