/**
 * scripts/ci-slurm.sh: the CI runs on one machine share Slurm, and the last one to leave stops a
 * Slurm that CI started. Slurm itself is stood in for by a script whose `up` starts a long-lived
 * background process that keeps every inherited descriptor open, as slurmctld and mariadbd do.
 * That is what once held the registry's lock and made `leave` wait for ever after the tests passed.
 */
import { afterEach, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const script = join(__dirname, '..', '..', 'scripts', 'ci-slurm.sh');

const fakeSlurm = `#!/usr/bin/env bash
pidfile="$FAKE_DIR/daemon.pid"
case "$1" in
  status) [ -e "$pidfile" ] && kill -0 "$(cat "$pidfile")" 2>/dev/null ;;
  up) sleep 600 </dev/null >/dev/null 2>&1 & echo $! > "$pidfile" ;;
  down) kill "$(cat "$pidfile")"; rm -f "$pidfile" ;;
esac
`;

void describe('CI runs sharing Slurm (scripts/ci-slurm.sh)', () => {
  let dir: string;
  const runs: ChildProcess[] = [];

  function run(cmd: 'join' | 'leave', pid: number): { status: number | null; out: string } {
    const r = spawnSync('bash', [script, cmd, String(pid)], {
      encoding: 'utf8',
      // A lock that is never released ends in exit 1 after this wait instead of hanging the test.
      env: { ...process.env, FIRECREST_CI_STATE: join(dir, 'state'), FIRECREST_CI_SLURM_SH: join(dir, 'slurm.sh'), FIRECREST_CI_LOCK_WAIT: '5', FAKE_DIR: dir },
      timeout: 30_000,
    });
    return { status: r.status, out: `${r.stdout}${r.stderr}` };
  }
  /** A stand-in for one `.ci/run` process: alive until ended. */
  function ciRun(): number {
    const p = spawn('sleep', ['600'], { stdio: 'ignore' });
    runs.push(p);
    return p.pid!;
  }
  async function daemonUp(): Promise<boolean> {
    if (!existsSync(join(dir, 'daemon.pid'))) return false;
    const pid = Number(await readFile(join(dir, 'daemon.pid'), 'utf8'));
    try { process.kill(pid, 0); return true; } catch { return false; }
  }
  async function endRun(p: number): Promise<void> {
    const child = runs.find((c) => c.pid === p)!;
    const gone = new Promise((resolve) => child.once('exit', resolve));
    child.kill();
    await gone;
  }

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ci-slurm-'));
    await writeFile(join(dir, 'slurm.sh'), fakeSlurm, { mode: 0o755 });
  });
  afterEach(async () => {
    for (const p of runs.splice(0)) p.kill();
    if (await daemonUp()) process.kill(Number(await readFile(join(dir, 'daemon.pid'), 'utf8')));
    await rm(dir, { recursive: true, force: true });
  });

  void it('starts Slurm for the first run and stops it when that run leaves, though the daemons outlive the lock holder', async () => {
    const a = ciRun();
    const joined = run('join', a);
    assert.equal(joined.status, 0, joined.out);
    assert.match(joined.out, /Slurm up/);
    assert.ok(await daemonUp());
    const left = run('leave', a);
    assert.equal(left.status, 0, left.out);
    assert.match(left.out, /Slurm down/);
    assert.equal(await daemonUp(), false);
  });

  void it('keeps Slurm up until the last of two runs leaves', async () => {
    const a = ciRun();
    const b = ciRun();
    assert.match(run('join', a).out, /Slurm up/);
    assert.match(run('join', b).out, /started by another CI run/);
    const first = run('leave', a);
    assert.equal(first.status, 0, first.out);
    assert.match(first.out, /left up/);
    assert.ok(await daemonUp());
    const last = run('leave', b);
    assert.match(last.out, /Slurm down/);
    assert.equal(await daemonUp(), false);
  });

  void it('counts a run that was killed before it could leave as gone', async () => {
    const a = ciRun();
    const b = ciRun();
    run('join', a);
    run('join', b);
    await endRun(a);
    const left = run('leave', b);
    assert.match(left.out, /Slurm down/);
    assert.equal(await daemonUp(), false);
  });

  void it('leaves a Slurm that was running before CI alone', async () => {
    spawnSync('bash', [join(dir, 'slurm.sh'), 'up'], { env: { ...process.env, FAKE_DIR: dir } });
    assert.ok(await daemonUp());
    const a = ciRun();
    assert.match(run('join', a).out, /already running/);
    const left = run('leave', a);
    assert.equal(left.status, 0, left.out);
    assert.ok(await daemonUp());
  });

  void it('refuses a run id that is not a process id, and an unknown command, before touching anything', () => {
    const r = run('join', Number.NaN);
    assert.equal(r.status, 2);
    const bad = spawnSync('bash', [script, 'restart', '1'], { encoding: 'utf8', env: { ...process.env, FIRECREST_CI_STATE: join(dir, 'state') } });
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /usage/);
    assert.equal(existsSync(join(dir, 'state')), false);
  });
});
