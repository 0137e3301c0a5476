/**
 * What differs between the API generations in the host suites, so each suite runs unchanged on a
 * v1 and a v2 connection: the gateway routes that fault switches and request counters match, and
 * skipping a case for a feature the connection lacks, with the reason taken from its capabilities.
 */
import type { Capabilities } from '../../../src/core/api';
import type { Target } from '../../support/target';

/** `METHOD /path` patterns of the local gateway (faults' `match`, stats' `byRoute` keys). */
export interface RoutePatterns {
  /** Listing a folder. */
  ls: string;
  /** The direct (small file) upload. */
  upload: string;
  /** The move that puts a saved file in place. */
  saveMove: string;
  /** Listing jobs (the Jobs view's poll). */
  jobsList: string;
  /**
   * Looking at given jobs (v1: the task that asks, not its polls; the gateway counts `?jobs=` apart;
   * sacct is left out: a listing's look at the window may still be answering after it).
   */
  jobLooks: string;
  /** Listing partitions. */
  partitions: string;
  /** Every file system request (listings, stats, uploads, checksums...). */
  files: string;
}

const V2: RoutePatterns = {
  ls: 'GET .*/ops/ls$',
  upload: 'POST .*/ops/upload',
  saveMove: 'POST .*/transfer/mv',
  jobsList: 'GET .*/compute/.*/jobs$',
  jobLooks: 'GET .*/compute/.*/jobs/\\{',
  partitions: 'GET .*/status/.*/partitions',
  files: '^\\w+ .*/filesystem/',
};

const V1: RoutePatterns = {
  ls: 'GET .*/utilities/ls$',
  upload: 'POST .*/utilities/upload',
  saveMove: 'PUT .*/utilities/rename',
  jobsList: 'GET .*/compute/jobs$',
  jobLooks: 'GET .*/compute/jobs\\?jobs=',
  partitions: 'GET .*/compute/partitions',
  files: '^\\w+ .*/(utilities|storage)/',
};

export function routesOf(t: Target): RoutePatterns {
  return t.apiVersion === 'v1' ? V1 : V2;
}

/** Why a case cannot run on this connection, or undefined when it can. */
export function lacks(caps: Capabilities, need: keyof Capabilities, what: string): string | undefined {
  return caps[need] ? undefined : `${what} is not available on this connection (capabilities.${need} is false)`;
}

/** Skips the running mocha case with `reason` (printed, since mocha shows no reason). */
export function skipBecause(ctx: Mocha.Context, reason: string | undefined): void {
  if (!reason) return;
  console.log(`      - skipped: ${reason}`);
  ctx.skip();
}

/**
 * The partition the job tests submit to: FIRECREST_TEST_PARTITION, else the local gateway's
 * `debug`, else the system's default, else its first. At a site, the fixture cluster's names do
 * not exist.
 */
export async function testPartition(client: { partitions(system: string): Promise<{ name: string; isDefault?: boolean }[]> }, system: string): Promise<string> {
  if (process.env.FIRECREST_TEST_PARTITION) return process.env.FIRECREST_TEST_PARTITION;
  const parts = await client.partitions(system).catch(() => []);
  return (parts.find((p) => p.name === 'debug') ?? parts.find((p) => p.isDefault) ?? parts[0])?.name ?? 'debug';
}
