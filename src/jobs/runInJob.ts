/**
 * One command inside a running job (v2 attach). The API answers 204 with no output, so the
 * command's output goes to a file in the job's working directory, followed by an `[exit N]` line;
 * once the call returns the file is read (its last MAX_OUTPUT bytes at most) and removed, whatever
 * happened: attach leaves nothing behind in the user's folders.
 */
import { randomBytes } from 'node:crypto';
import type { FirecrestApi } from '../core/api';
import { bashCommand, shellQuote } from '../core/shellQuote';

/** The most output bytes shown of one command (its end, when it wrote more). */
export const MAX_OUTPUT = 1024 * 1024;

export interface InJobResult {
  /** What the command wrote (stdout and stderr interleaved), without the `[exit N]` line. */
  output: string;
  /** Its exit status; undefined when the file has no status line (the command did not end normally). */
  exitCode?: number;
  /** Only the last MAX_OUTPUT bytes are in `output`. */
  truncated: boolean;
}

export async function runInJob(client: FirecrestApi, system: string, jobId: string, workingDirectory: string, command: string, signal?: AbortSignal): Promise<InJobResult> {
  const file = `${workingDirectory.replace(/\/+$/, '')}/.firecrest-attach-${jobId}-${Date.now()}-${randomBytes(3).toString('hex')}.out`;
  // Upstream runs `srun --jobid=N --overlap <command>` with no shell of its own: the grouping and the
  // redirections need one, so the whole script is handed to bash as one word.
  const wrapped = bashCommand(`{ ${command}\n} > ${shellQuote(file)} 2>&1; echo "[exit $?]" >> ${shellQuote(file)}`);
  try {
    await client.attachToJob(system, jobId, wrapped, { signal });
    const size = (await client.stat(system, file, { signal })).size;
    const text = size > MAX_OUTPUT
      ? (await client.tail(system, file, { bytes: MAX_OUTPUT, signal })).content
      : new TextDecoder().decode(await client.downloadSmall(system, file, { signal }));
    // The status line is the file's last (output without a final newline runs into it).
    const m = /\[exit (\d+)\]\n?$/.exec(text);
    return { output: m ? text.slice(0, m.index) : text, exitCode: m ? Number(m[1]) : undefined, truncated: size > MAX_OUTPUT };
  } finally {
    // Not with the caller's signal: a cancelled command's file is removed all the same.
    await client.remove(system, file).catch(() => undefined);
  }
}
