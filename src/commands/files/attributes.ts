/**
 * Change Permissions, Change Owner and Create Symbolic Link on a remote file. Other features may
 * skip the prompts with a second argument: `{mode}` for chmod, `{linkPath}` for symlink.
 */
import { fields, text } from '../../common/commandArgs';
import * as vscode from 'vscode';
import type { ConnectionService, Log } from '../../common/services';
import { registerCommand } from '../register';
import { resolveResource, toVscodeUri, type RemoteFilesHooks } from './resource';

const OCTAL = /^[0-7]{3,4}$/;
const SYMBOLIC = /^[ugoa]*[-+=]([rwxXst]*|[ugo])(,[ugoa]*[-+=]([rwxXst]*|[ugo]))*$/;

/** Undefined when `mode` is something chmod accepts (octal or symbolic), else the reason. */
export function validateMode(mode: string): string | undefined {
  const m = mode.trim();
  return OCTAL.test(m) || SYMBOLIC.test(m) ? undefined : vscode.l10n.t('An octal mode such as 755 or 0644, or a symbolic one such as u+x or go-w');
}

const NAME = /^[A-Za-z0-9_.][A-Za-z0-9_.-]*\$?$/;

/** `st_mode` as `rw-r--r--` and `644` (with the special bits where set: `4755`). */
export function modeText(stMode: number): { symbolic: string; octal: string } {
  const bits = stMode & 0o7777;
  const rwx = (n: number, special: boolean, s: string): string => `${n & 4 ? 'r' : '-'}${n & 2 ? 'w' : '-'}${special ? (n & 1 ? s : s.toUpperCase()) : n & 1 ? 'x' : '-'}`;
  const symbolic = rwx((bits >> 6) & 7, !!(bits & 0o4000), 's') + rwx((bits >> 3) & 7, !!(bits & 0o2000), 's') + rwx(bits & 7, !!(bits & 0o1000), 't');
  return { symbolic, octal: (bits > 0o777 ? bits.toString(8).padStart(4, '0') : bits.toString(8).padStart(3, '0')) };
}

/** The second argument other features may pass (the Explorer passes the selection array there). */
function option(arg: unknown, name: string): string | undefined {
  return fields(arg, { [name]: text })[name];
}

export function registerAttributeCommands(connections: ConnectionService, log: Log, hooks: RemoteFilesHooks): vscode.Disposable {
  return vscode.Disposable.from(
    registerCommand('firecrest.files.chmod', log, async (arg, opts) => {
      const r = await resolveResource(connections, arg, vscode.l10n.t('File or folder whose permissions to change'));
      if (!r) return;
      const given = option(opts, 'mode');
      const invalid = given === undefined ? undefined : validateMode(given);
      if (invalid) throw new Error(`${given}: ${invalid}`);
      // The box starts from the current mode, shown both ways (rw-r--r-- 644).
      const current = given === undefined ? await r.client.stat(r.ref.system, r.ref.path).then((s) => modeText(s.mode), () => undefined) : undefined;
      const mode = given ?? await vscode.window.showInputBox({
        title: vscode.l10n.t('Change Permissions of {0}', r.ref.basename || r.ref.path),
        prompt: current ? vscode.l10n.t('Now {0}. An octal mode such as 755, or a symbolic one such as u+x or go-w', `${current.symbolic} ${current.octal}`) : undefined,
        value: current?.octal,
        placeHolder: vscode.l10n.t('755, 0644, u+x, go-w'),
        validateInput: validateMode,
      });
      if (mode === undefined) return;
      await r.client.chmod(r.ref.system, r.ref.path, mode.trim());
      hooks.refresh(r.uri);
      if (given === undefined) {
        const after = await r.client.stat(r.ref.system, r.ref.path).then((s) => modeText(s.mode), () => undefined);
        const now = after ? `${after.symbolic} ${after.octal}` : mode.trim();
        void vscode.window.showInformationMessage(vscode.l10n.t('Permissions of {0}: {1}', r.ref.basename || r.ref.path, now));
      }
    }),
    registerCommand('firecrest.files.chown', log, async (arg) => {
      const r = await resolveResource(connections, arg, vscode.l10n.t('File or folder whose owner to change'));
      if (!r) return;
      const value = await vscode.window.showInputBox({
        title: vscode.l10n.t('Change Owner of {0}', r.ref.basename || r.ref.path),
        prompt: vscode.l10n.t('owner, owner:group or :group'),
        validateInput: (v) => {
          const [owner = '', group = '', ...rest] = v.trim().split(':');
          const ok = rest.length === 0 && (owner || group) && (!owner || NAME.test(owner)) && (!group || NAME.test(group));
          return ok ? undefined : vscode.l10n.t('owner, owner:group or :group (user and group names)');
        },
      });
      if (value === undefined) return;
      const [owner = '', group = ''] = value.trim().split(':');
      await r.client.chown(r.ref.system, r.ref.path, owner, group);
      hooks.refresh(r.uri);
    }),
    registerCommand('firecrest.files.symlink', log, async (arg, opts) => {
      const r = await resolveResource(connections, arg, vscode.l10n.t('File or folder the new link points to'));
      if (!r) return;
      const value = option(opts, 'linkPath') ?? await vscode.window.showInputBox({
        title: vscode.l10n.t('Create Symbolic Link to {0}', r.ref.path),
        prompt: vscode.l10n.t('Path of the new link (absolute, or relative to {0})', r.ref.dirname.path),
        value: `${r.ref.basename}.link`,
        validateInput: (v) => (v.trim() ? undefined : vscode.l10n.t('A path is required')),
      });
      if (value === undefined) return;
      const v = value.trim();
      const link = v.startsWith('/') ? r.ref.with({ path: v }) : r.ref.dirname.joinPath(v);
      await r.client.symlink(r.ref.system, r.ref.path, link.path);
      hooks.refresh(toVscodeUri(link), true);
    }),
  );
}
