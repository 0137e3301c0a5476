/**
 * A tiny element builder: text always goes in as text nodes (never as HTML), so data from the
 * cluster (job names, messages) cannot inject markup into the webview.
 */
export type Child = Node | string | number | undefined | null | false;
export type Attrs = Record<string, string | number | boolean | undefined | null>;

export function el<T extends HTMLElement = HTMLElement>(tag: string, attrs: Attrs = {}, ...children: Child[]): T {
  const e = document.createElement(tag) as T;
  setAttrs(e, attrs);
  append(e, children);
  return e;
}

const SVG_NS = 'http://www.w3.org/2000/svg';

export function svg<T extends SVGElement = SVGElement>(tag: string, attrs: Attrs = {}, ...children: Child[]): T {
  const e = document.createElementNS(SVG_NS, tag) as T;
  setAttrs(e, attrs);
  append(e, children);
  return e;
}

function setAttrs(e: Element, attrs: Attrs): void {
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    e.setAttribute(k, v === true ? '' : String(v));
  }
}

function append(e: Element, children: Child[]): void {
  for (const c of children) {
    if (c === undefined || c === null || c === false) continue;
    e.append(typeof c === 'number' ? String(c) : c);
  }
}

/** Replaces the children of `parent`. */
export function replace(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, children);
}
