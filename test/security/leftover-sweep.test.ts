/**
 * What a gateway killed with SIGKILL leaves behind is swept when one starts (issue 15): spool roots
 * of gateways that are gone (never one of a live gateway), and the staging area's temporary
 * objects and half-written parts.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { sweepDeadSpools } from '../../gateway/src/scheduler/local-runner';
import { StagingSweeper } from '../../gateway/src/staging/sweep';

const root = mkdtempSync(join(tmpdir(), 'f7t-sweep-'));
after(() => rmSync(root, { recursive: true, force: true }));

const myStart = (): string => {
  const stat = readFileSync(`/proc/${process.pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
};

void describe('leftover sweeps', () => {
  void it('removes spool roots of dead gateways and old ownerless ones, keeps a live gateway\'s', () => {
    const make = (name: string, owner?: string): string => {
      const d = join(root, name);
      mkdirSync(join(d, 'job1'), { recursive: true });
      if (owner !== undefined) writeFileSync(join(d, '.owner'), owner);
      return d;
    };
    const dead = make('f7t-spool-dead', '999999999 12345');
    const reused = make('f7t-spool-reused', `${process.pid} 1`);
    const live = make('f7t-spool-live', `${process.pid} ${myStart()}`);
    const oldOwnerless = make('f7t-spool-old');
    utimesSync(oldOwnerless, new Date(Date.now() - 3600_000), new Date(Date.now() - 3600_000));
    const newOwnerless = make('f7t-spool-new');
    const other = make('not-a-spool', '999999999 1');
    const swept = sweepDeadSpools(root).sort();
    assert.deepEqual(swept, [dead, oldOwnerless, reused].sort());
    for (const d of [live, newOwnerless, other]) assert.ok(existsSync(d), d);
  });

  void it('removes the staging area\'s temporary objects and half-written parts, nothing else', async () => {
    const staging = join(root, 'staging');
    mkdirSync(join(staging, 'tmp'), { recursive: true });
    mkdirSync(join(staging, 'multipart', 'a'.repeat(32)), { recursive: true });
    writeFileSync(join(staging, 'tmp', 'abc'), 'x');
    writeFileSync(join(staging, 'multipart', 'a'.repeat(32), '.3.ffee'), 'half');
    writeFileSync(join(staging, 'multipart', 'a'.repeat(32), 'part-1'), 'whole');
    writeFileSync(join(staging, 'multipart', 'a'.repeat(32), 'upload.json'), '{}');
    assert.equal(await new StagingSweeper(staging, () => 3600).sweepLeftovers(), 2);
    assert.ok(!existsSync(join(staging, 'tmp', 'abc')));
    assert.ok(existsSync(join(staging, 'multipart', 'a'.repeat(32), 'part-1')));
    assert.ok(existsSync(join(staging, 'multipart', 'a'.repeat(32), 'upload.json')));
  });
});
