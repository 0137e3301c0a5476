/** Which API v1 connection a v1-only command acts on: the one named, else the only one, else a pick. */
import { fields, text } from '../../common/commandArgs';
import * as vscode from 'vscode';
import { hasV1Extras, type FirecrestApi, type V1Extras } from '../../core/api';
import type { FirecrestClient } from '../../core/client';
import { NotSupportedError } from '../../core/errors';
import type { ExtensionServices } from '../../common/services';

export type V1Client = FirecrestClient & V1Extras;

export interface V1Target {
  profile: string;
  client: V1Client;
}

const isV1 = (c: FirecrestApi): c is FirecrestClient & V1Extras => hasV1Extras(c);

export async function v1Client(services: ExtensionServices, profile: string | undefined, what: string): Promise<V1Target | undefined> {
  const { connections } = services;
  if (profile) {
    const client = await connections.client(profile);
    if (!isV1(client)) throw new NotSupportedError(vscode.l10n.t('{0} needs a FirecREST API v1 connection; "{1}" speaks {2}.', what, profile, client.apiVersion));
    return { profile, client };
  }
  const signedIn = connections.connections().filter((c) => c.state !== 'signed-out');
  const found: V1Target[] = [];
  for (const c of signedIn) {
    const client = await connections.client(c.profile.name).catch(() => undefined);
    if (client && isV1(client)) found.push({ profile: c.profile.name, client });
  }
  if (found.length === 0) throw new NotSupportedError(vscode.l10n.t('{0} needs a signed-in FirecREST API v1 connection.', what));
  if (found.length === 1) return found[0];
  const pick = await vscode.window.showQuickPick(
    found.map((t) => ({ label: t.profile, target: t })),
    { placeHolder: vscode.l10n.t('Which FirecREST v1 connection?') },
  );
  return pick?.target;
}

/** The system named by a tree node (`System` object or name) or an argument. */
export function systemName(v: unknown): string | undefined {
  return text(v) ?? fields(v, { name: text }).name;
}

export async function pickSystem(services: ExtensionServices, profile: string, given: unknown): Promise<string | undefined> {
  const named = systemName(given);
  if (named) return named;
  const systems = await services.connections.systems(profile);
  if (systems.length === 1) return systems[0].name;
  return (await vscode.window.showQuickPick(systems.map((s) => ({ label: s.name, description: s.health.status })), { placeHolder: vscode.l10n.t('Which system?') }))?.label;
}
