/**
 * A gateway process of the suite's own (not the one with-gateway started), on a fixed port and
 * state dir, so that it can be killed and started again where clients expect it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { GatewayInfo } from '../support/target';

/** A loopback port nobody listens on right now. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const a = srv.address();
      const port = typeof a === 'object' && a ? a.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

export class OwnGateway {
  private proc?: ChildProcess;
  info?: GatewayInfo & { admin: string; adminToken: string };
  readonly stateDir = mkdtempSync(join(tmpdir(), 'f7t-own-gw-'));

  /** `script`: dist/gateway.js (relative to the working directory unless absolute). */
  /** `config`: keys of the gateway's config file (they hold across restarts, unlike admin settings). */
  constructor(readonly port: number, config: Record<string, unknown> = {}, private readonly script = 'dist/gateway.js', private readonly node = process.execPath) {
    writeFileSync(join(this.stateDir, 'config.json'), JSON.stringify({ commandTimeoutSeconds: Number(process.env.GATEWAY_COMMAND_TIMEOUT ?? 15), ...config }));
  }

  get running(): boolean {
    return this.proc !== undefined && this.proc.exitCode === null && this.proc.signalCode === null;
  }

  /** Starts it (again) on the same port and state dir; resolves with its JSON line. */
  async start(): Promise<GatewayInfo & { admin: string; adminToken: string }> {
    const args = [this.script, '--host', '127.0.0.1', '--port', String(this.port), '--state-dir', this.stateDir, '--config', join(this.stateDir, 'config.json'), '--scheduler', process.env.GATEWAY_SCHEDULER ?? 'auto'];
    const proc = spawn(this.node, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    this.proc = proc;
    let err = '';
    proc.stderr?.on('data', (d: Buffer) => { err = (err + d.toString()).slice(-2000); });
    const line = await new Promise<string>((resolve, reject) => {
      const rl = createInterface({ input: proc.stdout });
      const timer = setTimeout(() => reject(new Error('the gateway printed no JSON line within 60 s')), 60_000);
      rl.once('line', (l) => { clearTimeout(timer); resolve(l); });
      proc.once('exit', (code) => { clearTimeout(timer); reject(new Error(`the gateway exited early (code ${code}): ${err}`)); });
    });
    proc.stdout?.resume();
    this.info = JSON.parse(line) as GatewayInfo & { admin: string; adminToken: string };
    return this.info;
  }

  /** Kills it the hard way (no graceful close): what a crash or an OOM kill looks like to clients. */
  async kill(): Promise<void> {
    const p = this.proc;
    if (!p || !this.running) return;
    const exited = new Promise((r) => p.once('exit', r));
    p.kill('SIGKILL');
    await exited;
  }

  /** Stops it without closing anything (SIGSTOP): connections open, nothing answers, as a hung server. */
  pause(): void {
    if (this.running) this.proc?.kill('SIGSTOP');
  }

  /** Lets a paused gateway go on (SIGCONT): it answers what waited meanwhile. */
  resume(): void {
    if (this.running) this.proc?.kill('SIGCONT');
  }

  async dispose(): Promise<void> {
    const p = this.proc;
    if (p && this.running) {
      p.kill('SIGCONT');
      const exited = new Promise((r) => p.once('exit', r));
      p.kill('SIGTERM');
      const t = setTimeout(() => p.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(t);
    }
    rmSync(this.stateDir, { recursive: true, force: true });
  }
}
