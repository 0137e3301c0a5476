/**
 * Whether each profile's server answers, followed from its client's own requests: a request without
 * an answer for a few seconds, or tried again because the server did not answer, starts a probe
 * (liveness.ts); a server that does not answer it turns a connected profile into "reconnecting…";
 * the next answer turns it back into "connected", announced once (the views refresh). Also the
 * request log of each profile.
 */
import type { ClientEvents, FirecrestClient } from '../core/client';
import type { ConnectionState, Log } from '../common/services';
import { Liveness, PROBE_TIMEOUT_MS } from './liveness';

/** What the watch reads and changes of a profile (an entry of the connection service). */
export interface WatchedProfile {
  state: ConnectionState;
  client?: Promise<FirecrestClient>;
}

export interface WatchedProfiles<E extends WatchedProfile> {
  /** The profile's entry now (a new one after a change of the profile). */
  get(name: string): E | undefined;
  setState(entry: E, state: ConnectionState): void;
  /** The server answers again after it did not. */
  recovered(name: string): void;
}

export class ServerAnswers<E extends WatchedProfile> {
  /** Probes stop on dispose. */
  private readonly liveness = new Liveness();

  constructor(
    private readonly profiles: WatchedProfiles<E>,
    private readonly log: Log,
  ) {}

  /** Asks the server now (Retry on "Cannot reach"): true when it answers; a probe follows when not. */
  async checkNow(name: string): Promise<boolean> {
    const entry = this.profiles.get(name);
    const client = await entry?.client?.catch(() => undefined);
    if (!entry || !client) return false;
    const up = await client.ping({ timeoutMs: PROBE_TIMEOUT_MS, signal: this.liveness.signal });
    if (this.profiles.get(name) === entry) this.answered(name, up);
    if (!up) this.probe(name);
    return up;
  }

  /** The events a profile's client reports to. */
  events(name: string): ClientEvents {
    const log = this.log.withTag(`http:${name}`);
    return {
      onRequest: (e) => {
        log.debug(`${e.method} ${e.route} -> ${e.status ?? 'no answer'} in ${Math.round(e.durationMs)} ms${e.attempt > 1 ? ` (attempt ${e.attempt})` : ''}`);
        // (No answer may also be a cancel: only the probe says "reconnecting".)
        if (e.status !== undefined) this.answered(name, true);
      },
      onNoAnswerYet: (e) => {
        log.debug(`${e.route}: no answer after ${Math.round(e.waitedMs / 1000)} s`);
        this.probe(name);
      },
      onRetryWait: (e) => {
        log.info(`${e.route}: ${e.reason === 'rate-limit' ? 'rate limited' : 'transient failure'}, retrying in ${Math.round(e.waitMs / 1000)} s (${e.attempt}/${e.maxAttempts})`);
        if (e.reason === 'transient') this.probe(name);
      },
      onToken: (e) => log.debug(`new access token${e.expiresInSeconds ? ` (valid ${e.expiresInSeconds} s)` : ''}`),
    };
  }

  /** A profile's server answered again (or did not): "reconnecting…" and back, announced once. */
  private answered(name: string, yes: boolean): void {
    const entry = this.profiles.get(name);
    if (!entry) return;
    if (!yes && entry.state === 'connected') {
      this.profiles.setState(entry, 'reconnecting');
      this.log.warn(`"${name}" does not answer; trying again.`);
    } else if (yes && entry.state === 'reconnecting') {
      this.profiles.setState(entry, 'connected');
      this.log.info(`"${name}" answers again.`);
      this.profiles.recovered(name);
    }
  }

  /** A request went unanswered: is the server there at all? (One probe per profile at a time.) */
  private probe(name: string): void {
    const entry = this.profiles.get(name);
    if (!entry?.client) return;
    const current = (): boolean => this.profiles.get(name) === entry && !!entry.client && (entry.state === 'connected' || entry.state === 'reconnecting');
    this.liveness.probe(name, {
      ping: async (timeoutMs, signal) => {
        const client = await entry.client;
        return client ? client.ping({ timeoutMs, signal }) : false;
      },
      current,
      answered: (up) => this.answered(name, up),
    });
  }

  dispose(): void {
    this.liveness.dispose();
  }
}
