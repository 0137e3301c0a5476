/**
 * A notebook kernel in a Slurm job, through FirecREST alone: cells run in one Python process on
 * the node (state kept), output streams exact, errors come with their traceback, images as PNG,
 * interrupt stops a sleeping cell and keeps the state, restart starts a fresh process in the same
 * job, shutdown ends the job and removes the session folder, and a client that went away attaches
 * again and goes on.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ApiVersion, FirecrestClient } from '../../src/core/index';
import { NotebookSession, notebookScratch, type OutputMessage } from '../../src/core/notebook/session';
import { client, scratchDir, t } from './support';

const S = t.system;

/** Runs a cell and gathers what it printed and displayed. */
async function run(k: NotebookSession, cell: string, code: string) {
  const out: OutputMessage[] = [];
  const result = await k.execute(cell, code, (m) => out.push(m));
  const stdout = out.filter((m): m is Extract<OutputMessage, { type: 'stream' }> => m.type === 'stream' && m.name === 'stdout').map((m) => m.text).join('');
  const displays = out.filter((m): m is Extract<OutputMessage, { type: 'display' }> => m.type === 'display');
  const errors = out.filter((m): m is Extract<OutputMessage, { type: 'error' }> => m.type === 'error');
  return { result, stdout, displays, errors };
}

/** A 1×1 PNG, built by the cell itself (no matplotlib needed). */
const PNG_CELL = `import struct, zlib
def chunk(kind, data):
    return struct.pack('>I', len(data)) + kind + data + struct.pack('>I', zlib.crc32(kind + data))
class Dot:
    def _repr_png_(self):
        raw = b'\\x00\\xff\\x00\\x00'
        return b'\\x89PNG\\r\\n\\x1a\\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', 1, 1, 8, 2, 0, 0, 0)) + chunk(b'IDAT', zlib.compress(raw)) + chunk(b'IEND', b'')
Dot()`;

export function notebookSuite(api: ApiVersion): void {
  void describe(`notebook kernel in a job (API ${api})`, () => {
    let c: FirecrestClient;
    let dir: string;
    let k: NotebookSession;
    const states: string[] = [];
    const fast = { fastMs: 50, maxFastMs: 500, idleCheckMs: 5_000, onState: (s: { state: string }) => { states.push(s.state); } };

    before(async () => {
      c = await client({}, { apiVersion: api });
      dir = await scratchDir(c, 'notebook');
      k = await NotebookSession.start(c, S, notebookScratch(dir), { timeMinutes: 10 }, fast);
    });
    after(async () => {
      await k?.shutdown().catch(() => undefined);
      await c.remove(S, dir).catch(() => undefined);
      await c.dispose();
    });

    void it('runs cells in one process: state kept, the last expression displayed, counts in order', async () => {
      const a = await run(k, 'a', 'x = 21\nprint("hello from", __name__)');
      assert.deepEqual(a.result, { status: 'ok', count: 1 });
      assert.equal(a.stdout, 'hello from __main__\n');
      const b = await run(k, 'b', 'x * 2');
      assert.equal(b.result.count, 2);
      assert.equal(b.displays[0]?.data['text/plain'], '42');
      assert.ok(states.includes('idle'), `states: ${states.join(' ')}`);
      assert.equal(k.state.state, 'idle');
    });

    void it('streams 10,000 lines exactly, in order', async () => {
      const r = await run(k, 'lines', 'for i in range(10000):\n    print(f"line {i}")');
      assert.equal(r.result.status, 'ok');
      assert.equal(r.stdout, Array.from({ length: 10_000 }, (_, i) => `line ${i}\n`).join(''));
    });

    void it('an error: its type, message and traceback with the cell\'s line; the kernel goes on', async () => {
      const r = await run(k, 'err', 'def f():\n    return 1 / 0\nf()');
      assert.equal(r.result.status, 'error');
      assert.equal(r.errors[0]?.ename, 'ZeroDivisionError');
      assert.match(r.errors[0].traceback.join(''), /return 1 \/ 0/);
      assert.doesNotMatch(r.errors[0].traceback.join(''), /driver\.py/, 'the driver\'s frames are left out');
      assert.equal((await run(k, 'after-err', 'x')).displays[0]?.data['text/plain'], '21');
    });

    void it('an image: PNG display data as bytes; HTML as text', async () => {
      const r = await run(k, 'png', PNG_CELL);
      const png = r.displays[0]?.data['image/png'];
      assert.ok(png instanceof Uint8Array && Buffer.from(png).subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])), 'a PNG');
      const h = await run(k, 'html', 'class T:\n    def _repr_html_(self):\n        return "<b>bold</b>"\nT()');
      assert.equal(h.displays[0]?.data['text/html'], '<b>bold</b>');
    });

    void it('a matplotlib figure left open by a cell shows as a PNG (where the cluster has matplotlib)', async (ctx) => {
      const probe = await run(k, 'has-mpl', 'import importlib.util\nimportlib.util.find_spec("matplotlib") is not None');
      if (probe.displays[0]?.data['text/plain'] !== 'True') return ctx.skip('needs python3-matplotlib on the cluster (not installed here)');
      const r = await run(k, 'plot', 'import matplotlib.pyplot as plt\nplt.plot([1, 2, 3], [1, 4, 9])\nNone');
      assert.equal(r.result.status, 'ok', JSON.stringify(r.errors));
      const png = r.displays.find((d) => d.data['image/png'])?.data['image/png'];
      assert.ok(png instanceof Uint8Array && png.length > 1000, 'the figure as a PNG');
    });

    void it('interrupt stops a sleeping cell at once and keeps the state', async () => {
      const started = Date.now();
      const sleeping = run(k, 'sleep', 'import time\nprint("sleeping", flush=True)\ntime.sleep(60)');
      while (k.state.state !== 'busy') await new Promise((r) => setTimeout(r, 50));
      await k.interrupt();
      const r = await sleeping;
      assert.equal(r.result.status, 'interrupted');
      assert.equal(r.errors[0]?.ename, 'KeyboardInterrupt');
      assert.ok(Date.now() - started < 30_000, 'well before the sleep would end');
      assert.equal((await run(k, 'after-int', 'x')).displays[0]?.data['text/plain'], '21');
    });

    void it('a client that went away attaches again: the kernel and its state are there', async () => {
      await k.detach();
      k = NotebookSession.attach(c, k.handle, fast);
      const r = await run(k, 'reattached', 'x + 1');
      assert.equal(r.displays[0]?.data['text/plain'], '22');
      assert.ok(r.result.count > 2, `counts go on: ${r.result.count}`);
    });

    void it('restart: a fresh process in the same job (the state is gone)', async () => {
      await k.restart();
      const r = await run(k, 'fresh', 'x');
      assert.equal(r.result.status, 'error');
      assert.equal(r.errors[0]?.ename, 'NameError');
      const job = await c.job(S, k.handle.jobId);
      assert.equal(job.stateClass, 'running', 'the same job');
    });

    void it('a job ended from elsewhere (a cancel, its time limit): the kernel says so, a waiting cell fails, the folder goes', async () => {
      const other = await NotebookSession.start(c, S, notebookScratch(dir), { timeMinutes: 5 }, { ...fast, idleCheckMs: 1_000 });
      assert.equal((await run(other, 'one', '1')).result.status, 'ok');
      const sleeping = run(other, 'long', 'import time\ntime.sleep(120)');
      await c.cancelJob(S, other.handle.jobId);
      await assert.rejects(sleeping, /kernel has ended: job \S+ ended/);
      assert.equal(other.state.state, 'ended');
      await assert.rejects(c.stat(S, other.handle.dir), 'the session folder is removed');
    });

    void it('shutdown ends the job and removes the session folder', async () => {
      const { jobId, dir: folder } = k.handle;
      await k.shutdown();
      assert.equal((await c.job(S, jobId)).isFinal, true);
      await assert.rejects(c.stat(S, folder));
      await assert.rejects(k.execute('late', '1', () => undefined), /kernel has ended/);
    });
  });
}
