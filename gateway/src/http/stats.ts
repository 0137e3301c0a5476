/**
 * Request and connection counters for `GET /_admin/stats`: benchmarks and tests use them to check
 * how many calls a feature costs ("opening a folder costs exactly 1 request").
 */
export interface StatsSnapshot {
  requests: number;
  /** `METHOD /route/{param}` -> count (v1's jobs by id: `GET /v1/compute/jobs?jobs={jobs}`); unmatched requests under `METHOD <unmatched>`. */
  byRoute: Record<string, number>;
  connections: number;
  /** `POST /auth/token` calls (not in `requests`: a real deployment's token endpoint is elsewhere). */
  tokenRequests: number;
  /** Requests that came on a connection the upstream compat mode had closed while idle (not served). */
  idleDrops: number;
}

export class Stats {
  private requests = 0;
  private connections = 0;
  private tokenRequests = 0;
  private idleDrops = 0;
  private byRoute = new Map<string, number>();

  /**
   * `template` is Fastify's route url (`/v2/status/:system/nodes`), or undefined when unmatched;
   * `query`, a query parameter that makes the call a different one (`jobs`: `…/jobs?jobs={jobs}`).
   */
  countRequest(method: string, template: string | undefined, query?: string): void {
    this.requests++;
    const key = `${method} ${template === undefined ? '<unmatched>' : template.replace(/:([A-Za-z0-9_]+)/g, '{$1}')}${query ? `?${query}={${query}}` : ''}`;
    this.byRoute.set(key, (this.byRoute.get(key) ?? 0) + 1);
  }

  countTokenRequest(): void {
    this.tokenRequests++;
  }

  countConnection(): void {
    this.connections++;
  }

  countIdleDrop(): void {
    this.idleDrops++;
  }

  snapshot(): StatsSnapshot {
    return { requests: this.requests, byRoute: Object.fromEntries(this.byRoute), connections: this.connections, tokenRequests: this.tokenRequests, idleDrops: this.idleDrops };
  }

  reset(): void {
    this.requests = 0;
    this.connections = 0;
    this.tokenRequests = 0;
    this.idleDrops = 0;
    this.byRoute = new Map();
  }
}
