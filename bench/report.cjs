'use strict';
// Machine-readable bench results: with `--json` a bench ends with ONE line, a JSON object holding
// its figures, their targets and a `met` flag for each (and for the whole bench). The tables for
// people are printed as before; BENCHMARKS.md keeps them.

/** True when the bench was asked for its JSON line (`npm run bench:<name> -- --json`). */
const jsonWanted = process.argv.includes('--json');
exports.jsonWanted = jsonWanted;

/**
 * Prints the JSON line (only with `--json`). `figures`: name -> { value, unit?, target?, met? }.
 * The bench's `met` is true when every figure that has a target meets it.
 */
function emitJson(bench, figures) {
  if (!jsonWanted) return;
  const judged = Object.values(figures).filter((f) => typeof f.met === 'boolean');
  console.log(JSON.stringify({ bench, figures, met: judged.every((f) => f.met) }));
}

/** A figure with an upper bound (`value <= max`). */
function atMost(value, max, unit) {
  return { value, unit, target: `<= ${max}`, met: value <= max };
}

/** A figure with a lower bound (`value >= min`). */
function atLeast(value, min, unit) {
  return { value, unit, target: `>= ${min}`, met: value >= min };
}

/**
 * A bench's table as figures: each row keyed by its first cell, each cell by its column, plus the
 * `target` and `met` that `judge(row)` returns for rows that have a target.
 */
function emitTable(bench, head, rows, judge = () => ({})) {
  const figures = {};
  for (const r of rows) {
    const cells = Object.fromEntries(head.map((h, i) => [h, r[i]]));
    figures[String(r[0])] = { value: r[1], ...cells, ...judge(r) };
  }
  emitJson(bench, figures);
}

exports.emitJson = emitJson;
exports.atMost = atMost;
exports.atLeast = atLeast;
exports.emitTable = emitTable;
