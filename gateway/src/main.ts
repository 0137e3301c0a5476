/**
 * The gateway's command line:
 *   node dist/gateway.js [--host 127.0.0.1] [--port 0] [--scheduler auto|slurm|local]
 *                        [--state-dir DIR] [--config FILE] [--compat none|upstream] [--verbose]
 * Once listening it prints ONE JSON line on stdout (URLs, credentials, admin token); everything
 * else goes to stderr. SIGTERM/SIGINT close the server and stop the schedulers.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { TokenService } from './auth';
import type { CompatMode } from './compat';
import { loadConfig, type GatewayConfig } from './config';
import { Faults } from './faults';
import { HealthChecker } from './http/health';
import { Stats } from './http/stats';
import { createScheduler, type SchedulerKind } from './scheduler/index';
import { OutageScheduler, SchedulerOutage } from './scheduler/outage';
import type { Scheduler } from './scheduler/types';
import { buildServer } from './server';
import { ensureUserDirs, isRoot, setupUsers, type UserTable } from './setup';
import type { UnixUser } from './users';
import { Accounts } from './idp/accounts';
import { IdpStore } from './idp/adapter';
import { ACCESS_TOKENS, createProvider, loadIdpKeys } from './idp/provider';
import { MAX_USER_CODE_FAILURES, type IdpHolder } from './idp/routes';
import { FailureThrottle } from './http/failure-throttle';
import { TokenHooks, type IdpRuntime } from './idp/token-hooks';
import type { FileSystemConfig, GatewaySettings, SystemRuntime } from './v2/context';

interface Args {
  host: string;
  port: number;
  scheduler: SchedulerKind;
  stateDir: string;
  config?: string;
  verbose: boolean;
  compat?: CompatMode;
  mfa?: boolean;
  idp?: boolean;
}

const USAGE = 'usage: gateway [--host 127.0.0.1] [--port 0] [--scheduler auto|slurm|local] [--state-dir DIR] [--config FILE] [--compat none|upstream] [--mfa] [--no-idp] [--verbose]';

function parseArgs(argv: string[]): Args {
  const args: Args = { host: '127.0.0.1', port: 0, scheduler: 'auto', stateDir: resolve('.state/gateway'), verbose: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = (): string => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${a} needs a value\n${USAGE}`);
      return v;
    };
    if (a === '--host') args.host = value();
    else if (a === '--port') args.port = Number(value());
    else if (a === '--scheduler') {
      const s = value();
      if (s !== 'auto' && s !== 'slurm' && s !== 'local') throw new Error(`--scheduler must be auto, slurm or local\n${USAGE}`);
      args.scheduler = s;
    } else if (a === '--state-dir') args.stateDir = resolve(value());
    else if (a === '--config') args.config = resolve(value());
    else if (a === '--verbose') args.verbose = true;
    else if (a === '--mfa') args.mfa = true;
    else if (a === '--no-idp') args.idp = false;
    else if (a === '--compat') {
      const c = value();
      if (c !== 'none' && c !== 'upstream') throw new Error(`--compat must be none or upstream\n${USAGE}`);
      args.compat = c;
    }
    else if (a === '--help' || a === '-h') {
      console.error(USAGE);
      process.exit(0);
    } else throw new Error(`unknown argument ${a}\n${USAGE}`);
  }
  if (!Number.isInteger(args.port) || args.port < 0 || args.port > 65535) throw new Error(`--port must be 0..65535\n${USAGE}`);
  return args;
}

function defaultFileSystems(users: UserTable): FileSystemConfig[] {
  const fs: FileSystemConfig[] = [{ path: '/home', dataType: 'users', defaultWorkDir: true }];
  if (isRoot) {
    ensureUserDirs('/scratch', users.users.values());
    fs.push({ path: '/scratch', dataType: 'scratch', defaultWorkDir: false });
  }
  return fs;
}

async function startSystems(config: GatewayConfig, args: Args, users: UserTable, probeUser: UnixUser, outage: SchedulerOutage): Promise<Map<string, SystemRuntime>> {
  const systems = new Map<string, SystemRuntime>();
  for (const sc of config.systems) {
    const stateDir = join(args.stateDir, 'scheduler', sc.name);
    mkdirSync(stateDir, { recursive: true });
    const scheduler: Scheduler = new OutageScheduler(await createScheduler(args.scheduler, {
      cluster: sc.name,
      stateDir,
      partitions: config.local.partitions,
      reservations: config.local.reservations,
    }), outage);
    try {
      await scheduler.start();
    } catch (e) {
      // Keep serving: the health check then reports the scheduler as unhealthy, as a real site would.
      console.error(`[gateway] scheduler for ${sc.name} failed to start: ${e instanceof Error ? e.message : String(e)}`);
    }
    let directives = sc.transferDirectives;
    if (!directives) {
      const parts = await scheduler.partitions(probeUser).catch(() => []);
      directives = parts.some((p) => p.name === 'xfer') ? ['#SBATCH --partition=xfer'] : [];
    }
    systems.set(sc.name, { name: sc.name, scheduler, fileSystems: sc.fileSystems ?? defaultFileSystems(users), transferDirectives: directives });
  }
  return systems;
}

/** Whether every user may run `path`: each folder above it searchable by others, the file executable by them. */
function runnableByOthers(path: string): boolean {
  try {
    if ((statSync(path).mode & 0o001) === 0) return false;
    for (let dir = dirname(path); ; dir = dirname(dir)) {
      if ((statSync(dir).mode & 0o001) === 0) return false;
      if (dir === dirname(dir)) return true;
    }
  } catch {
    return false;
  }
}

/**
 * The Node binary a streamer job runs (as the user): this gateway's own when the users can reach
 * it, else the project's (next to dist/), else the system's. A Node under root's home (a test
 * run's Node 22) is out of the users' reach.
 */
function nodeForJobs(): string {
  const candidates = [process.execPath, join(__dirname, '..', 'node_modules', '.bin', 'node'), '/usr/local/bin/node', '/usr/bin/node'];
  for (const c of candidates) {
    let real: string;
    try {
      real = realpathSync(c);
    } catch {
      continue;
    }
    if (runnableByOthers(real)) return real;
  }
  return process.execPath;
}

async function main(): Promise<void> {
  // stdout carries the JSON line and nothing else: libraries' notices (oidc-provider prints its
  // NOTICE lines with console.info) go to stderr with everything else.
  console.info = console.error;
  console.log = console.error;
  const args = parseArgs(process.argv.slice(2));
  const config = loadConfig(args.config);
  mkdirSync(args.stateDir, { recursive: true, mode: 0o700 });
  const users = setupUsers(config.clients, args.stateDir, (m) => console.error(m));
  for (const u of users.users.values()) u.path = config.userPath;
  const first = users.clients[0];
  const probeUser = first && users.users.get(first.user);
  if (!first || !probeUser) throw new Error('no clients configured');
  const outage = new SchedulerOutage();
  const systems = await startSystems(config, args, users, probeUser, outage);

  const compat = args.compat ?? config.compat;
  const configured = (key: string): boolean => args.config !== undefined && key in (JSON.parse(readFileSync(args.config, 'utf8')) as Record<string, unknown>);
  const settings: GatewaySettings = {
    maxOpsFileSize: config.maxOpsFileSize,
    commandTimeoutSeconds: config.commandTimeoutSeconds,
    appVersion: config.appVersion,
    origin: '',
    stateDir: args.stateDir,
    maxPartSize: config.maxPartSize,
    stagingTtlSeconds: config.stagingTtlSeconds,
    maxExtractBytes: config.maxExtractBytes,
    maxStagingBytesPerUser: config.maxStagingBytesPerUser,
    reservationAdmins: config.reservationAdmins,
    accountingLagSeconds: compat === 'upstream' && !configured('accountingLagSeconds') ? 4 : config.accountingLagSeconds,
    compat,
    ingressPollSeconds: config.ingressPollSeconds ?? (compat === 'upstream' ? 60 : 1),
    idleCloseSeconds: 5,
    transferMethod: 's3',
    streamer: {
      // By absolute path: the job runs it as the user, with the job's environment.
      command: [nodeForJobs(), join(__dirname, 'gateway-streamer.js')],
      ports: config.streamerPorts ?? [45665, 45684],
      host: '127.0.0.1',
      waitTimeoutSeconds: 600,
      inboundLimitBytes: 5 * 1024 ** 3,
    },
  };
  const health = new HealthChecker(systems, probeUser, config.healthIntervalSeconds);
  const adminToken = randomBytes(24).toString('base64url');
  const runtime = { tokenLifetimeSeconds: config.tokenLifetimeSeconds };
  const tokens = await TokenService.load(args.stateDir, 'firecrest-gateway');
  const idpOn = args.idp ?? config.idp.enabled;
  const mfa = args.mfa ?? config.idp.mfa;
  // Not root: every login acts as the current unix user, as every client does.
  const unixName = (name: string): string => (users.isolated ? name : probeUser.name);
  const idp: (IdpHolder & { store: IdpStore; runtime: IdpRuntime }) | undefined = idpOn
    ? {
      accounts: Accounts.load(args.stateDir, config.idp.users, mfa, unixName),
      store: new IdpStore(),
      userCodes: new FailureThrottle(MAX_USER_CODE_FAILURES),
      runtime: { deviceInterval: config.idp.devicePollSeconds, deviceMinInterval: config.idp.devicePollSeconds, idTokenFault: undefined },
    }
    : undefined;
  const app = await buildServer({
    v2: { settings, systems },
    health,
    users,
    tokens,
    faults: new Faults(config.faults),
    stats: new Stats(),
    outage,
    adminToken,
    runtime,
    verbose: args.verbose,
    idp,
  });
  await app.listen({ host: args.host, port: args.port });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : args.port;
  const host = args.host.includes(':') ? `[${args.host}]` : args.host;
  const origin = `http://${host}:${port}`;
  settings.origin = origin;
  if (idp) {
    const keys = await loadIdpKeys(args.stateDir);
    const issuer = `${origin}/idp`;
    idp.provider = await createProvider({
      issuer,
      resource: `${origin}/`,
      publicClientId: config.idp.publicClientId,
      keys,
      accounts: idp.accounts,
      store: idp.store,
      accessTokenLifetime: () => runtime.tokenLifetimeSeconds,
      userCodeFailed: (address) => idp.userCodes.failed(address),
    });
    idp.hooks = new TokenHooks(idp.runtime, keys);
    await tokens.trust(issuer, keys.publicJwk, ACCESS_TOKENS);
  }
  health.start();

  let stopping = false;
  const stop = async (): Promise<void> => {
    if (stopping) return;
    stopping = true;
    // A scheduler that hangs on stop must not keep the process (and the test harness) waiting.
    setTimeout(() => process.exit(0), 8000).unref();
    health.stop();
    await app.close().catch(() => undefined);
    await Promise.all([...systems.values()].map((s) => s.scheduler.stop().catch(() => undefined)));
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop());
  process.on('SIGINT', () => void stop());

  const kind = [...systems.values()][0]?.scheduler.kind ?? 'local';
  process.stdout.write(`${JSON.stringify({
    v2: `${origin}/v2`,
    v1: `${origin}/v1`,
    tokenUrl: `${origin}/auth/token`,
    clientId: first.clientId,
    clientSecret: first.clientSecret,
    systems: [...systems.keys()],
    user: first.user,
    scheduler: kind,
    compat: settings.compat,
    stateDir: args.stateDir,
    admin: `${origin}/_admin`,
    adminToken,
    clients: users.clients,
    ...(idp ? {
      issuer: `${origin}/idp`,
      publicClientId: config.idp.publicClientId,
      mfa: idp.accounts.mfa,
      idpUsers: idp.accounts.list().map((a) => ({ login: a.login, password: a.password, user: a.user, ...(idp.accounts.mfa ? { totpSecret: a.totpSecret } : {}) })),
    } : {}),
  })}\n`);
}

main().catch((e: unknown) => {
  console.error(`[gateway] ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
});
