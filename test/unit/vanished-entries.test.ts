/** Listing a folder while entries vanish under it: looked at again for a while, and only for that. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { NotFoundError, PermissionDeniedError } from '../../src/core/errors';
import { listingSettled } from '../../src/core/vanishedEntries';

const vanished = (...names: string[]): NotFoundError =>
  new NotFoundError(`Remote process failed with exit status:1 and error message:${names.map((n) => `ls: cannot access '${n}': No such file or directory`).join('\n')}`);

/** A `list` failing with `failures` in turn, then answering `ok`. */
function flaky(failures: Error[]): { list: () => Promise<string>; calls: () => number } {
  let n = 0;
  return {
    list: () => {
      const f = failures[n++];
      return f ? Promise.reject(f) : Promise.resolve('ok');
    },
    calls: () => n,
  };
}

void describe('listingSettled', () => {
  void it('looks again while entries below the folder vanish, more than four times', async () => {
    const l = flaky([vanished('/d/a'), vanished('/d/b', '/d/c'), vanished('/d/e'), vanished('/d/f'), vanished('/d/g')]);
    assert.equal(await listingSettled(l.list, '/d/'), 'ok');
    assert.equal(l.calls(), 6);
  });

  void it("reads the server's text where the message is in words (causedBy)", async () => {
    const worded = new NotFoundError('No such file or folder: /d/a', { causedBy: [vanished('/d/a').message] });
    const f = flaky([worded]);
    assert.equal(await listingSettled(f.list, '/d'), 'ok');
    assert.equal(f.calls(), 2);
  });

  void it('gives up once the time budget is spent', async () => {
    let t = 0;
    const l = flaky([vanished('/d/a'), vanished('/d/b'), vanished('/d/c')]);
    await assert.rejects(listingSettled(l.list, '/d', undefined, () => (t += 10_000)), NotFoundError);
    assert.equal(l.calls(), 2);
  });

  void it('does not look again for the folder itself, a path elsewhere, or another failure', async () => {
    for (const e of [vanished('/d'), vanished('/other/x'), vanished('/d/a', '/other/x'), new PermissionDeniedError("ls: cannot open directory '/d/a': Permission denied")]) {
      const l = flaky([e]);
      await assert.rejects(listingSettled(l.list, '/d'), (x: unknown) => x === e);
      assert.equal(l.calls(), 1);
    }
  });
});
