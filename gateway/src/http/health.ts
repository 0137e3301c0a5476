/**
 * The background health checker behind `servicesHealth` and `/status/liveness/`: like the real
 * server it really probes each service (ssh = run `true` as a user, scheduler = ping the controller
 * and ask its version, filesystem = each path is a reachable directory) and serves the last
 * results; the compute and transfer routes refuse with 503 while the scheduler is unhealthy.
 */
import { runAs } from '../exec';
import type { UnixUser } from '../users';
import type { SystemRuntime } from '../runtime';

export interface ServiceHealth {
  serviceType: 'ssh' | 'scheduler' | 'filesystem' | 's3' | 'exception';
  lastChecked: string;
  latency: number;
  healthy: boolean;
  message: string | null;
  path?: string;
}

export interface SystemHealth {
  servicesHealth: ServiceHealth[] | null;
  lastHealthCheck: string | null;
  /** Last version the scheduler reported (null until it answered once). */
  schedulerVersion: string | null;
}

/** Seconds each probe may take (`probing.services.*.timeout`). */
export const PROBE_TIMEOUT = 10;

function iso(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

async function timed(serviceType: ServiceHealth['serviceType'], probe: () => Promise<string | null>, path?: string): Promise<ServiceHealth> {
  const started = Date.now();
  let healthy = true;
  let message: string | null = null;
  try {
    message = await Promise.race([
      probe(),
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`probe timed out after ${PROBE_TIMEOUT}s`)), PROBE_TIMEOUT * 1000).unref()),
    ]);
  } catch (e) {
    healthy = false;
    message = e instanceof Error ? e.message : String(e);
  }
  const entry: ServiceHealth = { serviceType, lastChecked: iso(Date.now()), latency: (Date.now() - started) / 1000, healthy, message };
  if (path !== undefined) entry.path = path;
  return entry;
}

export class HealthChecker {
  private readonly state = new Map<string, SystemHealth & { checkedAt: number }>();
  private inflight: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly systems: Map<string, SystemRuntime>,
    private readonly probeUser: UnixUser,
    readonly intervalSeconds: number,
  ) {}

  /** Probes now, then every `intervalSeconds` (the timer does not keep the process alive). */
  start(): void {
    void this.refresh();
    this.timer = setInterval(() => void this.refresh(), this.intervalSeconds * 1000);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  /** Re-probes every system; concurrent callers share one run. */
  refresh(): Promise<void> {
    this.inflight ??= this.probeAll().finally(() => { this.inflight = undefined; });
    return this.inflight;
  }

  /** Results for `system`, waiting for the first probe if none finished yet. */
  async get(system: string): Promise<SystemHealth> {
    if (!this.state.has(system)) await this.refresh();
    return this.state.get(system) ?? { servicesHealth: null, lastHealthCheck: null, schedulerVersion: null };
  }

  /**
   * True when the last probe of `system` found `serviceType` unhealthy. Reads what is known now
   * (no probe, like the real server's in-memory health): nothing probed yet means no verdict.
   */
  unhealthy(system: string, serviceType: ServiceHealth['serviceType']): boolean {
    return this.state.get(system)?.servicesHealth?.some((h) => h.serviceType === serviceType && !h.healthy) ?? false;
  }

  /** The body of `GET /status/liveness/`. */
  liveness(): { healthcheckRuns: Record<string, string>; lastUpdate: number } {
    const runs: Record<string, string> = {};
    let oldest: number | undefined;
    for (const [name, s] of this.state) {
      runs[name] = iso(s.checkedAt);
      oldest = oldest === undefined ? s.checkedAt : Math.min(oldest, s.checkedAt);
    }
    return { healthcheckRuns: runs, lastUpdate: oldest === undefined ? 0 : Math.floor((Date.now() - oldest) / 1000) };
  }

  private async probeAll(): Promise<void> {
    await Promise.all([...this.systems.values()].map((s) => this.probeSystem(s)));
  }

  private async probeSystem(system: SystemRuntime): Promise<void> {
    const user = this.probeUser;
    let version: string | null = this.state.get(system.name)?.schedulerVersion ?? null;
    const checks = await Promise.all([
      timed('ssh', async () => {
        const r = await runAs(user, ['true'], { timeoutSeconds: PROBE_TIMEOUT });
        if (r.exitCode !== 0) throw new Error(`exit status ${r.exitCode}: ${r.stderr.toString().trim()}`);
        return null;
      }),
      timed('scheduler', async () => {
        // Like the real check (`scontrol ping`): the controller must answer, not just the binaries.
        // A verdict holds until the next probe (compute routes answer 503 meanwhile), so a ping
        // that fails once on a busy controller is asked again before it counts.
        await system.scheduler.ping().catch(async () => {
          await new Promise((r) => setTimeout(r, 1500));
          await system.scheduler.ping();
        });
        version = await system.scheduler.version();
        return null;
      }),
      ...system.fileSystems.map((fs) =>
        timed('filesystem', async () => {
          const r = await runAs(user, ['test', '-d', fs.path, '-a', '-x', fs.path], { timeoutSeconds: PROBE_TIMEOUT, cwd: '/' });
          if (r.exitCode !== 0) throw new Error(`${fs.path} is not accessible`);
          return null;
        }, fs.path),
      ),
    ]);
    const now = Date.now();
    this.state.set(system.name, { servicesHealth: checks, lastHealthCheck: iso(now), schedulerVersion: version, checkedAt: now });
  }
}
