/** The storage side-cars' answers are untrusted text: each tool's output read field by field. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseDf, parseLfs, parsePurge, parseQuota, parseQuotaAnswer, purgeBody, quotaBody } from '../../src/core/facts/storage';
import { parseEstimates } from '../../src/core/facts/startEstimate';

const KiB = 1024;

void describe('storage figures', () => {
  void it('lfs quota: over quota (*), a grace period running, a long name on its own line', () => {
    const u = parseLfs('/lustre/scratch/very/long/mount/point\n  1048577*  1048576  2097152  6d23h59m  12  0  0  -\n', '/scratch');
    assert.deepEqual(u, { path: '/scratch', tool: 'lfs', usedBytes: 1048577 * KiB, softLimitBytes: 1048576 * KiB, hardLimitBytes: 2097152 * KiB, files: 12, softLimitFiles: undefined, hardLimitFiles: undefined, grace: '6d23h59m', shared: false });
    assert.equal(parseLfs("lfs quota: cannot resolve path '/home': Inappropriate ioctl for device (25)\n", '/home'), undefined);
  });

  void it('quota -w -p: the header skipped, KiB blocks, seconds of grace; "none" gives no figures', () => {
    const text = 'Disk quotas for user alice (uid 1001): \n     Filesystem  blocks   quota   limit   grace   files   quota   limit   grace\n      /dev/sda1  20*  10  40  3600  5  0  0  0\n';
    const u = parseQuota(text, '/home');
    assert.equal(u?.usedBytes, 20 * KiB);
    assert.equal(u?.softLimitBytes, 10 * KiB);
    assert.equal(u?.grace, '3600s');
    assert.equal(u?.softLimitFiles, undefined, '0 is no limit');
    assert.equal(parseQuota('Disk quotas for user alice (uid 1001): none\n', '/home'), undefined);
  });

  void it('df -P: a mount point with spaces; the whole file system\'s figures, said to be shared', () => {
    const u = parseDf('Filesystem 1024-blocks Used Available Capacity Mounted on\n/dev/x 1000 250 750 25% /mnt/my disk\n', 'Filesystem Inodes IUsed IFree IUse% Mounted on\n/dev/x 100 7 93 7% /mnt/my disk\n', '/mnt/my disk');
    assert.deepEqual(u, { path: '/mnt/my disk', tool: 'df', usedBytes: 250 * KiB, softLimitBytes: 1000 * KiB, hardLimitBytes: 1000 * KiB, files: 7, softLimitFiles: 100, hardLimitFiles: 100, shared: true });
  });

  void it('the answer: lfs before quota before df, per file system; one without figures is missing with the words', () => {
    const text = [
      '@fs 0', '@lfs', "lfs quota: cannot resolve path '/home'", '@status 25', '@quota', 'Disk quotas for user a (uid 1): ', '  /dev/h  5  100  200  0  3  0  0  0', '@status 0', '@df', 'F 1 2 3 4 5', '/dev/h 1000 5 995 1% /home', '@status 0',
      '@fs 1', '@df', 'df: /gone: No such file or directory', '@status 1', '@dfi', '@status 1',
      '@fs 7', '@df', 'F', '/dev/z 1 1 0 100% /z', '@status 0',
    ].join('\n');
    const r = parseQuotaAnswer(text, ['/home', '/gone']);
    assert.deepEqual(r.usages.map((u) => [u.path, u.tool, u.usedBytes]), [['/home', 'quota', 5 * KiB]]);
    assert.deepEqual(r.missing, [{ path: '/gone', why: 'df: /gone: No such file or directory' }]);
  });

  void it('the scripts quote every path; a known tool is asked alone', () => {
    const body = quotaBody(["/home/it's"], new Map([["/home/it's", 'quota']])).join('\n');
    assert.match(body, /quota -w -p -f '\/home\/it'\\''s'/);
    assert.doesNotMatch(body, /lfs|df -P/);
    assert.match(purgeBody('/scratch/a b', 30).join('\n'), /^d='\/scratch\/a b'$/m);
    assert.match(purgeBody('/s', 30).join('\n'), /-amin \+43200 /);
  });
});

void describe('the purge preview', () => {
  void it('reads the total and the escaped names; a name that climbs out or a torn line is left out', () => {
    const text = '@total 5 1234\n100\t1700000000.5\tbig.dat\n10\t1700000000\tdir/odd\\nname\\\\x\n9\t1\t../../etc/passwd\n8\t1\ta//b\ngarbage line\n';
    const p = parsePurge(text, '/scratch/a', 30);
    assert.equal(p.total, 5);
    assert.equal(p.totalBytes, 1234);
    assert.deepEqual(p.files, [{ rel: 'big.dat', bytes: 100, accessedAt: 1700000000 }, { rel: 'dir/odd\nname\\x', bytes: 10, accessedAt: 1700000000 }]);
  });
});

void describe('start estimates', () => {
  void it('reads sbatch --test-only per partition: an estimate with its nodes, a refusal in words, a part out of range left out', () => {
    const text = ['@p 0', 'sbatch: Job 12 to start at 1795939394 using 4 processors on nodes nid[001-002] in partition debug', '@status 0',
      '@p 1', 'sbatch: error: invalid partition specified: nope', 'allocation failure: Invalid partition name specified', '@status 1',
      '@p 9', 'sbatch: Job 13 to start at 1 using 1 processors on nodes x in partition y', '@status 0'].join('\n');
    assert.deepEqual(parseEstimates(text, ['debug', 'nope']), [
      { partition: 'debug', startTime: 1795939394, nodes: 'nid[001-002]' },
      { partition: 'nope', refused: 'invalid partition specified: nope; allocation failure: Invalid partition name specified' },
    ]);
    assert.deepEqual(parseEstimates('', ['a']), [{ partition: 'a', refused: 'no estimate' }]);
  });
});
