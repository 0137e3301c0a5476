/**
 * Streams between the staging store and the cluster file system through a process running as the
 * user (argv only), so permissions and ownership are the user's and no file is held in memory.
 */
import { PassThrough, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { asNamedBy, launchPiped } from '../exec';
import type { UnixUser } from '../users';
import { atomicWriteArgv } from '../fs/atomic-write';

interface Child {
  stdout: Readable;
  /** Resolves once the process ended: its exit status and stderr text. */
  done: Promise<{ code: number; stderr: string }>;
  kill: () => void;
}

function start(user: UnixUser, argv: string[]): Child & { stdin: NodeJS.WritableStream } {
  const child = launchPiped(user, argv, { cwd: user.home });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (s: string) => { if (stderr.length < 4096) stderr += s; });
  const done = new Promise<{ code: number; stderr: string }>((resolve) => {
    child.on('error', (e) => resolve({ code: 127, stderr: e.message }));
    child.on('close', (code) => resolve({ code: code ?? 1, stderr: asNamedBy(argv[0], stderr.trim()) }));
  });
  // Consumed at once: on exit Node resumes (and so drops) child output nobody reads yet, and the
  // reader may start only after an await.
  const stdout = child.stdout.pipe(new PassThrough());
  return { stdout, stdin: child.stdin, done, kill: () => child.kill('SIGKILL') };
}

/** A stream of `path`'s bytes read by the user (`cat`); `done` reports whether the read succeeded. */
export function readAsUser(user: UnixUser, path: string): Child {
  const c = start(user, ['cat', '--', path]);
  c.stdin.end();
  return c;
}

/**
 * Writes `source` (`size` bytes) to `path` as the user, atomically (fs/atomic-write); rejects with
 * the tool's error text.
 */
export async function writeAsUser(user: UnixUser, path: string, source: Readable, size: number): Promise<void> {
  const c = start(user, atomicWriteArgv(path, size));
  c.stdout.resume();
  try {
    await pipeline(source, c.stdin);
  } catch {
    // dd failing to open the target closes its stdin early; its own message is the better one.
  }
  const { code, stderr } = await c.done;
  if (code !== 0) throw new Error(stderr || `dd exited with status ${code}`);
}
