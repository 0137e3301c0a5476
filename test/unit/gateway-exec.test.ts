// The gateway's command runner (gateway/src/exec.ts) with real processes: a command whose output
// passes its cap, or that outlives its time, is ended with everything it started, and the answer
// comes at once (security review 3, finding 1). As root the command runs as an unprivileged user.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { describe, test } from 'node:test';
import { runAs } from '../../gateway/src/exec';
import type { UnixUser } from '../../gateway/src/users';

function runner(): UnixUser {
  const root = process.getuid?.() === 0;
  if (!root) {
    const me = userInfo();
    return { name: me.username, uid: me.uid, gid: me.gid, group: me.username, home: me.homedir, groups: [] };
  }
  try {
    execFileSync('getent', ['passwd', 'f7texec'], { stdio: 'ignore' });
  } catch {
    execFileSync('useradd', ['-M', '-d', '/tmp', '-U', '-s', '/bin/bash', 'f7texec'], { stdio: 'ignore' });
  }
  const [, , uid, gid, , home] = execFileSync('getent', ['passwd', 'f7texec'], { encoding: 'utf8' }).trim().split(':');
  return { name: 'f7texec', uid: Number(uid), gid: Number(gid), group: 'f7texec', home, groups: [] };
}

/** The pids of processes whose command line holds `mark`. */
function processesWith(mark: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(mark)) found.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

void describe('gateway command runner: caps and deadlines end the whole command', () => {
  const user = runner();

  void test('output past the cap ends the tool and what it started, and answers at once', async () => {
    // `sleep` stands for a long `find`: started by the tool, it holds the pipe open.
    const mark = `f7t-cap-${randomBytes(4).toString('hex')}`;
    const started = Date.now();
    const r = await runAs(user, ['bash', '-c', `exec -a ${mark} sleep 60 & yes ${mark}`], { timeoutSeconds: 30, maxOutputBytes: 64 * 1024, cwd: '/tmp' });
    assert.equal(r.outputExceeded, true);
    assert.ok(Date.now() - started < 10_000, `answered after ${Date.now() - started} ms`);
    // The group got SIGKILL before the answer; the kernel ends its processes a moment later (under
    // load, after the answer: CI saw them in /proc then). They must be gone within that moment.
    let left = processesWith(mark);
    for (const until = Date.now() + 5_000; left.length && Date.now() < until; left = processesWith(mark)) await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(left, [], 'nothing of the command runs on');
  });

  void test('the time limit holds for a command whose own timeout cannot end it', async () => {
    // The tool leaves `timeout`'s group (setsid), so `timeout` ends only its own child and the pipe
    // stays open: the gateway's deadline answers anyway, as a time-out.
    const mark = `f7t-deadline-${randomBytes(4).toString('hex')}`;
    const started = Date.now();
    const r = await runAs(user, ['bash', '-c', `setsid bash -c 'exec -a ${mark} sleep 60' & wait`], { timeoutSeconds: 1, cwd: '/tmp' });
    const took = Date.now() - started;
    assert.equal(r.exitCode, 124);
    assert.ok(took < 15_000, `answered after ${took} ms`);
    for (const pid of processesWith(mark)) process.kill(pid, 'SIGKILL');
  });

  void test('a plain command still answers with its output and exit status', async () => {
    const r = await runAs(user, ['bash', '-c', 'echo out; echo err >&2; exit 3'], { timeoutSeconds: 10, maxOutputBytes: 1024, cwd: '/tmp' });
    assert.equal(r.exitCode, 3);
    assert.equal(r.stdout.toString(), 'out\n');
    assert.equal(r.stderr.toString(), 'err\n');
    assert.equal(r.outputExceeded, false);
  });
});
