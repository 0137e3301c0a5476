/** Sizes, rates, durations and names as the Transfer Centre writes them. */
import type { TransferKindView, TransferView } from '../../src/webviews/protocol';

const KiB = 1024;
const MiB = KiB * 1024;
const GiB = MiB * 1024;

export function bytes(n: number): string {
  if (n < KiB) return `${n} B`;
  if (n < MiB) return `${(n / KiB).toFixed(1)} KiB`;
  if (n < GiB) return `${(n / MiB).toFixed(1)} MiB`;
  return `${(n / GiB).toFixed(2)} GiB`;
}

export function rate(bps: number): string {
  return `${bytes(Math.round(bps))}/s`;
}

export function duration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
}

export const KIND_LABEL: Record<TransferKindView, string> = {
  upload: 'Upload', download: 'Download', move: 'Move', copy: 'Copy', delete: 'Delete', compress: 'Compress', extract: 'Extract',
};

/** A glyph per kind (plain text: the webview loads no icon font). */
export const KIND_GLYPH: Record<TransferKindView, string> = {
  upload: '↑', download: '↓', move: '→', copy: '⧉', delete: '✕', compress: '▣', extract: '▤',
};

export function basename(p: string): string {
  const clean = p.replace(/\/+$/, '');
  return clean.slice(clean.lastIndexOf('/') + 1) || p;
}

/**
 * Percent done, when the size is known. Bytes count as sent when they are written to the socket,
 * so a multipart upload counts only the parts the staging area accepted; 100 only once it ended.
 */
export function percent(t: TransferView): number | undefined {
  if (t.state === 'done') return 100;
  if (!t.bytesTotal || t.bytesDone === undefined) return undefined;
  let p = (t.bytesDone / t.bytesTotal) * 100;
  if (t.kind === 'upload' && t.partsTotal && t.partsTotal > 1 && t.partsDone !== undefined) p = Math.min(p, (t.partsDone / t.partsTotal) * 100);
  return Math.max(0, Math.min(t.state === 'running' ? 99 : 100, Math.floor(p)));
}

const PHASES: Record<string, string> = {
  staging: 'Requesting a staged transfer',
  uploading: 'Uploading',
  transferring: 'Transferring',
  downloading: 'Downloading',
  completing: 'Completing the multipart upload',
  waiting: 'Waiting for the transfer job',
  verifying: 'Comparing SHA-256 with the server',
  verified: 'Verified',
  unverified: 'Not verified',
};

export function phaseLabel(phase: string | undefined): string {
  return phase ? (PHASES[phase] ?? phase) : 'Starting';
}
