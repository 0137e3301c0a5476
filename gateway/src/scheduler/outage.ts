/**
 * A scheduler outage on demand (admin switch `PUT /_admin/scheduler`): while it is on, every call
 * of the wrapped scheduler fails the way Slurm's commands do when slurmctld cannot be reached, and
 * `ping` reports the controller DOWN, so the health checker marks the scheduler unhealthy and the
 * compute and transfer routes answer 503. Jobs already running keep running, as on a real cluster
 * whose controller is down. The machine's own Slurm is never touched.
 */
import type { UnixUser } from '../users';
import {
  SchedulerError, type JobMetadataRecord, type JobQuery, type JobRecord, type JobSpec, type NodeRecord, type PartitionRecord,
  type ReservationRecord, type ReservationSpec, type Scheduler,
} from './types';

/** The switch, shared by every system of the gateway. */
export class SchedulerOutage {
  down = false;
}

const UNREACHABLE = 'slurm_load_jobs error: Unable to contact slurm controller (connect failure)';

export class OutageScheduler implements Scheduler {
  constructor(private readonly inner: Scheduler, private readonly outage: SchedulerOutage) {}

  get kind(): Scheduler['kind'] { return this.inner.kind; }
  get cluster(): string { return this.inner.cluster; }

  /** Runs `call` on the real scheduler unless the outage is on. */
  private async up<T>(call: () => Promise<T>): Promise<T> {
    if (this.outage.down) throw new SchedulerError(`Unexpected Slurm command response. exit_status:1 std_err:${UNREACHABLE}`, 500, UNREACHABLE);
    return call();
  }

  version(): Promise<string> { return this.inner.version(); }
  async ping(): Promise<void> {
    if (this.outage.down) throw new SchedulerError(`Slurmctld(primary) at ${this.inner.cluster} is DOWN`);
    return this.inner.ping();
  }
  start(): Promise<void> { return this.inner.start(); }
  stop(): Promise<void> { return this.inner.stop(); }

  submit(user: UnixUser, spec: JobSpec): Promise<string> { return this.up(() => this.inner.submit(user, spec)); }
  list(user: UnixUser, query: JobQuery): Promise<JobRecord[]> { return this.up(() => this.inner.list(user, query)); }
  get(user: UnixUser, jobId: string): Promise<JobRecord | undefined> { return this.up(() => this.inner.get(user, jobId)); }
  lookup(user: UnixUser, jobId: string): Promise<JobRecord[]> { return this.up(() => this.inner.lookup(user, jobId)); }
  metadata(user: UnixUser, jobId: string): Promise<JobMetadataRecord | undefined> { return this.up(() => this.inner.metadata(user, jobId)); }
  cancel(user: UnixUser, jobId: string): Promise<void> { return this.up(() => this.inner.cancel(user, jobId)); }
  attach(user: UnixUser, jobId: string, command: string, timeoutMs: number): Promise<{ stdout: string; stderr: string; exitCode: number }> {
    return this.up(() => this.inner.attach(user, jobId, command, timeoutMs));
  }
  accounting(user: UnixUser, query: JobQuery): Promise<JobRecord[]> { return this.up(() => this.inner.accounting(user, query)); }
  partitions(user: UnixUser): Promise<PartitionRecord[]> { return this.up(() => this.inner.partitions(user)); }
  nodes(user: UnixUser): Promise<NodeRecord[]> { return this.up(() => this.inner.nodes(user)); }
  reservations(user: UnixUser): Promise<ReservationRecord[]> { return this.up(() => this.inner.reservations(user)); }
  accounts(user: UnixUser): Promise<{ name: string; default: boolean }[]> { return this.up(() => this.inner.accounts(user)); }
  createReservation(spec: ReservationSpec): Promise<void> { return this.up(() => this.inner.createReservation(spec)); }
  updateReservation(spec: ReservationSpec): Promise<void> { return this.up(() => this.inner.updateReservation(spec)); }
  deleteReservation(name: string): Promise<void> { return this.up(() => this.inner.deleteReservation(name)); }
}
