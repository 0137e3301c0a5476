/**
 * "Cannot reach <site>": one state for a server that does not answer, in the words the Remote and
 * container extensions use, shown once per connection instead of each request's network error.
 */
import * as vscode from 'vscode';
import { FirecrestError, MaintenanceError, MalformedResponseError, UnavailableError } from '../core/errors';
import type { ConnectionProfile } from '../core/model';

/** The site as its users know it: the host (and port) of its FirecREST URL. */
export function siteOf(profile: Pick<ConnectionProfile, 'url'>): string {
  try {
    return new URL(profile.url).host || profile.url;
  } catch {
    return profile.url;
  }
}

/**
 * A failure that says the server did not answer at all (refused, dropped, not found on the
 * network), not that it answered with a refusal, a maintenance notice or something unreadable.
 */
export function isUnreachable(e: unknown): boolean {
  return e instanceof UnavailableError && !(e instanceof MaintenanceError) && !(e instanceof MalformedResponseError);
}

/** The site a failure to reach a server names (the origin it carries), if it names one. */
export function siteOfError(e: unknown): string | undefined {
  return e instanceof FirecrestError && e.origin ? siteOf({ url: e.origin }) : undefined;
}

export function cannotReach(site: string): string {
  return vscode.l10n.t('Cannot reach {0}', site);
}

/** `14:03`: when something was last seen. */
export function clockTime(ms: number): string {
  return new Date(ms).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });
}
