/**
 * Files an agent may send to the cluster: only what really lies inside a folder the user opened
 * (VS Code's workspace folders, the MCP server's working folder). A link inside it to a file
 * outside it (a key in ~/.ssh) would be shown by its inside name and send the other file.
 */
import { readFile, realpath, stat } from 'node:fs/promises';
import { isAbsolute, relative, resolve } from 'node:path';
import { InvalidInputError, NotFoundError } from '../errors';

/**
 * The bytes of `path` (relative to `folder`, or absolute) when it resolves, links followed, to a
 * file inside `folder`; InvalidInputError when it leads outside, NotFoundError when it is not there.
 */
export async function readInsideFolder(folder: string, path: string): Promise<Uint8Array> {
  let real: string;
  try {
    real = await realpath(resolve(folder, path));
  } catch {
    throw new NotFoundError(`${path} is not a file in ${folder}`);
  }
  const inside = relative(await realpath(folder), real);
  if (!inside || inside.startsWith('..') || isAbsolute(inside)) throw new InvalidInputError(`${path} leads outside ${folder} (to ${real}): only files inside it are sent`);
  if (!(await stat(real)).isFile()) throw new InvalidInputError(`${path} is not a file (a folder or a device): only files are sent`);
  return readFile(real);
}
