/**
 * Checks one directive's value by its option's kind and returns the typed value or the reason
 * sbatch rejects it.
 */
import type { ValueKind } from './options';
import type { Span, TypedValue, ValueItem } from './types';
import { MAIL_TYPES, parseArray, parseDependency, parseMemory, parseTime, type ValueResult } from './values';

/**
 * `value` as written (unquoted); `span` is where it starts in the document so list items get
 * their own spans. Quoted values keep the item spans approximate (shifted by the quote).
 */
export function readTypedValue(kind: ValueKind, value: string, span: Span, quoted: boolean): ValueResult<TypedValue | undefined> {
  const at = span.start + (quoted ? 1 : 0);
  switch (kind) {
    case 'time':
      return map(parseTime(value), (seconds) => ({ kind: 'time', seconds }));
    case 'memory':
      return map(parseMemory(value), (mebibytes) => ({ kind: 'memory', mebibytes }));
    case 'array':
      return map(parseArray(value), (spec) => ({ kind: 'array', spec }));
    case 'dependency':
      return map(parseDependency(value), (spec) => ({ kind: 'dependency', spec }));
    case 'count':
      if (!/^\d+$/.test(value) || Number(value) < 1) return { ok: false, reason: `'${value}' is not a positive whole number` };
      return { ok: true, value: { kind: 'count', count: Number(value) } };
    case 'range':
      if (!/^\d+(-\d+)?(,\d+(-\d+)?)*$/.test(value)) return { ok: false, reason: `'${value}' is not a count or a min-max range` };
      return { ok: true, value: undefined };
    case 'partition':
    case 'reservation':
    case 'qos':
    case 'account': {
      const items = splitItems(value, span.line, at);
      if (items.some((i) => i.text === '')) return { ok: false, reason: `'${value}' has an empty name in its list` };
      if (kind === 'account' && items.length > 1) return { ok: false, reason: 'a job charges one account: remove the comma' };
      return { ok: true, value: { kind: 'list', items } };
    }
    case 'mail-type': {
      const unknown = value.split(',').filter((t) => !(MAIL_TYPES as readonly string[]).includes(t.toUpperCase()));
      if (unknown.length) return { ok: false, reason: `unknown mail type ${unknown.map((u) => `'${u}'`).join(', ')} (${MAIL_TYPES.join(', ')})` };
      return { ok: true, value: undefined };
    }
    case 'open-mode':
      // sbatch looks at the first letter only.
      if (!/^[at]/i.test(value)) return { ok: false, reason: `'${value}' is neither append nor truncate` };
      return { ok: true, value: undefined };
    case 'none':
    case 'string':
      return { ok: true, value: undefined };
  }
}

function map<A, B>(r: ValueResult<A>, f: (a: A) => B): ValueResult<B> {
  return r.ok ? { ok: true, value: f(r.value) } : r;
}

function splitItems(value: string, line: number, start: number): ValueItem[] {
  const items: ValueItem[] = [];
  let offset = start;
  for (const text of value.split(',')) {
    items.push({ text, span: { line, start: offset, end: offset + text.length } });
    offset += text.length + 1;
  }
  return items;
}
