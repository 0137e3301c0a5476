/**
 * Create, update and delete reservations through the v1 reservations service, from the Systems
 * tree (Reservations group and reservation nodes of v1 connections) or the palette. The forms check
 * what the server checks; when the scheduler still refuses, its text is what the user sees.
 */
import * as vscode from 'vscode';
import type { V1ReservationRequest } from '../../core/api';
import type { Reservation } from '../../core/model';
import type { ExtensionServices } from '../../common/services';
import type { SystemsViewControl } from '../../common/viewControls';
import { argRecord, runForm, type FormField } from '../shared/form';
import { checkEnd, checkName, checkNodeCount, checkStart, formatLocalTime } from '../shared/rules';
import { pickSystem, v1Client, type V1Client } from '../shared/v1Client';

export interface ReservationResult {
  profile: string;
  system: string;
  name: string;
}

const HOUR = 3_600_000;

function scheduleFields(defaults: { nodes?: string; nodeType?: string; features: string[]; start: string; end: string }): FormField[] {
  const known = defaults.features.length ? `: ${defaults.features.join(', ')}` : '';
  return [
    { key: 'numberOfNodes', prompt: vscode.l10n.t('Number of nodes'), value: defaults.nodes ?? '1', check: checkNodeCount },
    // API v1 requires it: its site tool reserves nodes of one feature.
    { key: 'nodeType', prompt: vscode.l10n.t('Node type, the feature of the nodes to reserve{0}', known), value: defaults.nodeType ?? (defaults.features.length === 1 ? defaults.features[0] : ''), check: (v) => checkName('node type', v, true) },
    { key: 'starttime', prompt: vscode.l10n.t('Start, YYYY-MM-DDTHH:MM:SS (cluster local time)'), value: defaults.start, check: (v) => checkStart(v) },
    { key: 'endtime', prompt: vscode.l10n.t('End, YYYY-MM-DDTHH:MM:SS (cluster local time)'), value: defaults.end, check: (v, a) => checkEnd(v, a.starttime ?? '') },
  ];
}

function request(a: Record<string, string>): V1ReservationRequest {
  return { numberOfNodes: Number(a.numberOfNodes), nodeType: a.nodeType ?? '', starttime: a.starttime, endtime: a.endtime };
}

/** The features the system's nodes offer (none when the server cannot list nodes). */
async function nodeFeatures(client: V1Client, system: string): Promise<string[]> {
  const nodes = await client.nodes(system).catch(() => []);
  return [...new Set(nodes.flatMap((n) => n.features ?? []).filter((f) => f && f !== '(null)'))].sort();
}

/** The account most likely meant: the profile's default, the scheduler's default, the primary group. */
async function defaultAccount(services: ExtensionServices, profile: string, client: V1Client, system: string): Promise<string> {
  const configured = services.connections.connections().find((c) => c.profile.name === profile)?.profile.defaultAccount;
  if (configured) return configured;
  const info = await client.userInfo(system).catch(() => undefined);
  return info?.accounts?.find((a) => a.isDefault)?.name ?? info?.group.name ?? '';
}

async function target(services: ExtensionServices, a: Record<string, unknown>, what: string): Promise<{ profile: string; client: V1Client; system: string } | undefined> {
  const t = await v1Client(services, typeof a.profile === 'string' ? a.profile : undefined, what);
  if (!t) return undefined;
  const system = await pickSystem(services, t.profile, a.system);
  return system ? { ...t, system } : undefined;
}

/** The reservation a node or argument names, else a pick among the system's reservations. */
async function pickReservation(client: V1Client, system: string, a: Record<string, unknown>, placeHolder: string): Promise<Reservation | string | undefined> {
  const node = a.reservation as Reservation | undefined;
  if (node && typeof node === 'object' && typeof node.name === 'string') return node;
  if (typeof a.name === 'string') return a.name;
  const list = await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: vscode.l10n.t('Listing reservations…') }, () => client.reservationsManaged(system));
  if (list.length === 0) throw new Error(vscode.l10n.t('No reservations on {0}.', system));
  const pick = await vscode.window.showQuickPick(
    list.map((r) => ({ label: r.name, description: `${formatLocalTime(r.start.getTime())} → ${formatLocalTime(r.end.getTime())}`, r })),
    { placeHolder },
  );
  return pick?.r;
}

export function reservationCommands(services: ExtensionServices, systems: SystemsViewControl) {
  const done = (message: string, r: ReservationResult): ReservationResult => {
    systems.refresh();
    void vscode.window.showInformationMessage(message);
    return r;
  };

  return {
    async create(arg?: unknown): Promise<ReservationResult | undefined> {
      const a = argRecord(arg);
      const t = await target(services, a, vscode.l10n.t('Creating a reservation'));
      if (!t) return undefined;
      const { profile, client, system } = t;
      const start = Math.ceil((Date.now() + HOUR) / HOUR) * HOUR;
      const answers = await runForm(vscode.l10n.t('Create Reservation on {0}', system), [
        { key: 'name', prompt: vscode.l10n.t('Reservation name'), placeHolder: vscode.l10n.t('e.g. my_course'), check: (v) => checkName('reservation name', v) },
        { key: 'account', prompt: vscode.l10n.t('Account the reservation is for'), value: await defaultAccount(services, profile, client, system), check: (v) => checkName('account', v) },
        ...scheduleFields({ features: await nodeFeatures(client, system), start: formatLocalTime(start), end: formatLocalTime(start + HOUR) }),
      ], a);
      if (!answers) return undefined;
      await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Creating reservation {0}…', answers.name) }, () =>
        client.reservationsCreate(system, answers.name, answers.account, request(answers)),
      );
      return done(vscode.l10n.t('Reservation {0} created on {1}.', answers.name, system), { profile, system, name: answers.name });
    },

    async update(arg?: unknown): Promise<ReservationResult | undefined> {
      const a = argRecord(arg);
      const t = await target(services, a, vscode.l10n.t('Updating a reservation'));
      if (!t) return undefined;
      const { profile, client, system } = t;
      const r = await pickReservation(client, system, a, vscode.l10n.t('Update which reservation?'));
      if (!r) return undefined;
      const name = typeof r === 'string' ? r : r.name;
      const start = typeof r === 'string' ? Math.ceil((Date.now() + HOUR) / HOUR) * HOUR : r.start.getTime();
      const end = typeof r === 'string' ? start + HOUR : r.end.getTime();
      const nodeType = typeof r === 'string' ? undefined : r.features && r.features !== '(null)' ? r.features : undefined;
      const answers = await runForm(vscode.l10n.t('Update Reservation {0}', name), scheduleFields({ nodeType, features: await nodeFeatures(client, system), start: formatLocalTime(start), end: formatLocalTime(end) }), a);
      if (!answers) return undefined;
      await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Updating reservation {0}…', name) }, () =>
        client.reservationsUpdate(system, name, request(answers)),
      );
      return done(vscode.l10n.t('Reservation {0} updated on {1}.', name, system), { profile, system, name });
    },

    async delete(arg?: unknown): Promise<ReservationResult | undefined> {
      const a = argRecord(arg);
      const t = await target(services, a, vscode.l10n.t('Deleting a reservation'));
      if (!t) return undefined;
      const { profile, client, system } = t;
      const r = await pickReservation(client, system, a, vscode.l10n.t('Delete which reservation?'));
      if (!r) return undefined;
      const name = typeof r === 'string' ? r : r.name;
      if (a.confirmed !== true) {
        const del = vscode.l10n.t('Delete');
        const ok = await vscode.window.showWarningMessage(vscode.l10n.t('Delete reservation {0} on {1}?', name, system), { modal: true }, del);
        if (ok !== del) return undefined;
      }
      await client.reservationsDelete(system, name);
      return done(vscode.l10n.t('Reservation {0} deleted on {1}.', name, system), { profile, system, name });
    },
  };
}
