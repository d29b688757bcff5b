import type { Db } from '../../db/index.js';
import { renewLeases } from './webhooks.queue.repository.js';

/** One webhook's run as the heartbeat sees it: which of its deliveries are still held. */
export interface RunLease {
  /** Still ours, and for long enough to start another attempt (the heartbeat keeps it so). */
  holds(): boolean;
  /** These deliveries are settled (recorded or handed back): stop renewing them. */
  drop(ids: number[]): void;
  /** The run is over: stop renewing whatever is left (it expires if not recorded). */
  end(): void;
}

interface Held {
  token: string;
  run: RunState;
}

interface RunState {
  ids: Set<number>;
  validUntil: number;
  lost: boolean;
}

/**
 * Keeps a worker's claims alive while it works on them. A claim is short (`leaseMs`, a few
 * seconds) so that a killed worker's deliveries are taken over within seconds; a heartbeat
 * renews the claims still held every `leaseMs / 5`, also while one attempt waits for a slow
 * receiver (up to the delivery timeout, longer than a lease). A run whose lease could not be
 * renewed in time, or was taken over, sends no further delivery (see `holds`).
 */
export class LeaseKeeper {
  private readonly held = new Map<number, Held>();
  private timer: NodeJS.Timeout | undefined;
  private renewing = false;
  private readonly heartbeatMs: number;

  constructor(
    private readonly db: Db,
    private readonly leaseMs: number,
    private readonly onError: (err: unknown) => void,
  ) {
    this.heartbeatMs = Math.max(10, Math.floor(leaseMs / 5));
  }

  /** Starts renewing a run's claimed deliveries, leased with `token` until `leaseUntil`. */
  hold(ids: number[], token: string, leaseUntil: string): RunLease {
    const run: RunState = { ids: new Set(ids), validUntil: Date.parse(leaseUntil), lost: false };
    for (const id of ids) this.held.set(id, { token, run });
    this.timer ??= setInterval(() => void this.renew(), this.heartbeatMs).unref();
    const drop = (dropped: Iterable<number>) => {
      for (const id of dropped) {
        run.ids.delete(id);
        if (this.held.get(id)?.run === run) this.held.delete(id);
      }
      if (this.held.size === 0) this.stopTimer();
    };
    return {
      // One heartbeat of margin: the attempt about to start is covered by renewals from now.
      holds: () => !run.lost && Date.now() + this.heartbeatMs < run.validUntil,
      drop,
      end: () => drop([...run.ids]),
    };
  }

  private stopTimer(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private async renew(): Promise<void> {
    if (this.renewing || this.held.size === 0) return; // the last renewal is still waiting
    this.renewing = true;
    const snapshot = [...this.held.entries()];
    const until = Date.now() + this.leaseMs;
    try {
      const tokens = [...new Set(snapshot.map(([, h]) => h.token))];
      const renewed = new Set(
        await renewLeases(
          this.db,
          snapshot.map(([id]) => id),
          tokens,
          new Date(until).toISOString(),
        ),
      );
      for (const [id, { run }] of snapshot) {
        if (!run.ids.has(id)) continue; // settled meanwhile: its row was updated anyway
        if (renewed.has(id)) run.validUntil = Math.max(run.validUntil, until);
        else run.lost = true;
      }
    } catch (err) {
      // Not fatal: the leases run out unless a later heartbeat gets through, and `holds` says so.
      this.onError(err);
    } finally {
      this.renewing = false;
    }
  }
}
