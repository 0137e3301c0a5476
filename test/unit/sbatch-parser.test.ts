/**
 * The sbatch parser: which lines count, the option forms getopt accepts, the value formats sbatch
 * checks (time, memory, array, dependency) and the forms it rejects, with their spans.
 */
import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { parseSbatchScript } from '../../src/core/sbatch/parser';
import { formatTime, parseArray, parseDependency, parseMemory, parseTime } from '../../src/core/sbatch/values';

const script = (...lines: string[]) => parseSbatchScript(lines.join('\n'));
const one = (directive: string) => {
  const s = script('#!/bin/bash', directive, 'srun hostname');
  return { s, d: s.directives[0], p: s.problems };
};

void describe('which lines sbatch reads', () => {
  void it('reads directives after the shebang, between comments and blank lines, until the first command', () => {
    const s = script('#!/bin/bash', '# a comment', '', '#SBATCH --partition=debug', '   ', '#SBATCH -t 10', 'module load x', '#SBATCH --account=proj');
    assert.deepEqual(s.directives.map((d) => [d.name, d.value]), [['partition', 'debug'], ['time', '10']]);
    assert.equal(s.firstCommandLine, 6);
    assert.equal(s.hasDirectives, true);
    assert.deepEqual(s.problems.map((p) => [p.code, p.severity, p.span]), [['directive-ignored', 'warning', { line: 7, start: 0, end: 7 }]]);
    assert.match(s.problems[0].message, /after the first command \(line 7\)/);
  });

  void it('ignores indented and lower-case directives, with a warning', () => {
    const s = script('#!/bin/sh', '  #SBATCH --time=5', '#sbatch --time=5', '# SBATCH --time=5', 'echo');
    assert.equal(s.directives.length, 0);
    assert.equal(s.hasDirectives, false);
    assert.deepEqual(s.problems.map((p) => [p.code, p.span.line, p.span.start]), [['directive-ignored', 1, 2], ['directive-ignored', 2, 0], ['directive-ignored', 3, 0]]);
  });

  void it('handles CRLF line ends and a script without directives', () => {
    const s = parseSbatchScript('#!/bin/bash\r\n#SBATCH --job-name=x\r\necho\r\n');
    assert.equal(s.last('job-name')?.value, 'x');
    assert.equal(s.last('job-name')?.valueSpan?.end, 20);
    assert.equal(parseSbatchScript('echo hi\n').hasDirectives, false);
  });

  void it('the last occurrence wins, several options may share a line, # starts a comment', () => {
    const s = script('#SBATCH -N 2 -n 8 # two nodes', '#SBATCH --nodes=3', '#SBATCH --job-name="my job" --comment "a b"');
    assert.equal(s.last('nodes')?.value, '3');
    assert.equal(s.last('ntasks')?.value, '8');
    assert.equal(s.last('job-name')?.value, 'my job');
    assert.deepEqual(s.last('job-name')?.valueSpan, { line: 2, start: 19, end: 27 });
    assert.equal(s.last('comment')?.value, 'a b');
    assert.deepEqual(s.directives[0].lineSpan, { line: 0, start: 0, end: 17 });
    // The first --nodes (-N) is overridden: flagged where it stands, nothing else is.
    assert.deepEqual(s.problems.map((p) => [p.code, p.span.line, p.message]), [['repeated-option', 0, '--nodes is given again on line 2: sbatch uses that one and ignores this.']]);
    assert.deepEqual(script('#SBATCH --account=a', '#SBATCH --time=5').problems, []);
  });
});

void describe('option forms', () => {
  const cases: [string, string, string][] = [
    ['#SBATCH --time=1:00', 'time', '1:00'],
    ['#SBATCH --time 1:00', 'time', '1:00'],
    ['#SBATCH -t 1:00', 'time', '1:00'],
    ['#SBATCH -t1:00', 'time', '1:00'],
    ['#SBATCH --part=debug', 'partition', 'debug'],
    ['#SBATCH -p debug', 'partition', 'debug'],
    ['#SBATCH -A proj', 'account', 'proj'],
  ];
  for (const [line, name, value] of cases) {
    void it(`${line} -> ${name}=${value}`, () => {
      const { d, p } = one(line);
      assert.deepEqual(p, []);
      assert.equal(d.name, name);
      assert.equal(d.value, value);
      const written = line.slice(8).split(/[ =]/)[0].replace(/^(-[a-zA-Z]).+/, '$1');
      assert.deepEqual(d.nameSpan, { line: 1, start: 8, end: 8 + written.length });
      assert.equal(line.slice(d.valueSpan!.start, d.valueSpan!.end), value);
    });
  }

  void it('flags and clustered short flags', () => {
    const { s } = one('#SBATCH -Hv --requeue --exclusive');
    assert.deepEqual(s.directives.map((d) => [d.name, d.value]), [['hold', undefined], ['verbose', undefined], ['requeue', undefined], ['exclusive', undefined]]);
    assert.deepEqual(s.problems, []);
  });

  void it('getopt takes the next word as a required value even when it starts with -', () => {
    const { d, p } = one('#SBATCH --job-name -x');
    assert.equal(d.value, '-x');
    assert.deepEqual(p, []);
  });

  void it('rejects unknown, ambiguous, valueless and stray options', () => {
    const { s } = one('#SBATCH --partitionz=debug --mem-per=4G -Z --hold=yes --time');
    assert.deepEqual(s.problems.map((p) => [p.code, p.span.start, p.span.end]), [
      ['unknown-directive', 8, 20],
      ['ambiguous-directive', 27, 36],
      ['unknown-directive', 40, 42],
      ['unexpected-value', 49, 53],
      ['missing-value', 54, 60],
    ]);
    assert.match(s.problems[1].message, /--mem-per-cpu, --mem-per-gpu/);
    const stray = one('#SBATCH debug').p;
    assert.deepEqual(stray.map((p) => p.code), ['stray-argument']);
    assert.deepEqual(one('#SBATCH').p.map((p) => p.code), ['missing-value']);
  });

  void it('-t=1:00 is an error: getopt keeps the = in a short option value', () => {
    const { d, p } = one('#SBATCH -t=1:00');
    assert.equal(d.value, '1:00');
    assert.deepEqual(p.map((x) => [x.code, x.span.start, x.span.end]), [['malformed-value', 10, 15]]);
  });
});

void describe('time limits', () => {
  const ok: [string, number][] = [
    ['30', 1800], ['30:30', 1860], ['1:00:00', 3600], ['2-0', 172800], ['1-12', 129600],
    ['1-2:30', 95400], ['1-02:03:04', 93840], ['UNLIMITED', Infinity], ['infinite', Infinity], ['0', Infinity],
  ];
  for (const [text, seconds] of ok) void it(`${text} = ${seconds} s`, () => assert.deepEqual(parseTime(text), { ok: true, value: seconds }));
  for (const text of ['1h', '1:2:3:4', '-5', '1-', '', 'abc', '1.5']) {
    void it(`rejects '${text}'`, () => assert.equal(parseTime(text).ok, false));
  }
  void it('a malformed --time is a directive error on the value span', () => {
    const { p } = one('#SBATCH --time=1h');
    assert.deepEqual(p.map((x) => [x.code, x.span]), [['malformed-value', { line: 1, start: 15, end: 17 }]]);
    assert.match(p[0].message, /^--time: '1h' is not a time; use minutes, MM:SS/);
  });
  void it('formats like Slurm', () => {
    assert.equal(formatTime(3600), '01:00:00');
    assert.equal(formatTime(93784), '1-02:03:04');
    assert.equal(formatTime(Infinity), 'UNLIMITED');
  });
});

void describe('memory', () => {
  void it('units K/M/G/T, MiB by default', () => {
    assert.deepEqual(parseMemory('4G'), { ok: true, value: 4096 });
    assert.deepEqual(parseMemory('512'), { ok: true, value: 512 });
    assert.deepEqual(parseMemory('2048k'), { ok: true, value: 2 });
    assert.deepEqual(parseMemory('1T'), { ok: true, value: 1048576 });
    assert.deepEqual(parseMemory('0'), { ok: true, value: 0 });
  });
  void it('rejects fractions and unknown units', () => {
    assert.match((parseMemory('1.5G') as { reason: string }).reason, /whole numbers/);
    assert.equal(parseMemory('4GiB').ok, false);
    assert.equal(parseMemory('4P').ok, false);
    assert.deepEqual(one('#SBATCH --mem-per-cpu=2X').p.map((x) => x.code), ['malformed-value']);
    assert.deepEqual(one('#SBATCH --mem=4G').d.typed, { kind: 'memory', mebibytes: 4096 });
  });
});

void describe('arrays', () => {
  void it('ranges, lists, steps and the throttle', () => {
    assert.deepEqual(parseArray('0-15'), { ok: true, value: { count: 16, maxIndex: 15, throttle: undefined } });
    assert.deepEqual(parseArray('1,3,5-7'), { ok: true, value: { count: 5, maxIndex: 7, throttle: undefined } });
    assert.deepEqual(parseArray('0-15:4'), { ok: true, value: { count: 4, maxIndex: 12, throttle: undefined } });
    assert.deepEqual(parseArray('0-99%10'), { ok: true, value: { count: 100, maxIndex: 99, throttle: 10 } });
  });
  void it('counts an array of 150,000 tasks, and refuses indexes past any Slurm\'s limit in words (security review 3, finding 15)', () => {
    // This threw an untyped RangeError (a spread of 150,000 arguments); 0-4000000000 would have
    // counted four billion indexes in the extension host.
    assert.deepEqual(parseArray('0-149999'), { ok: true, value: { count: 150_000, maxIndex: 149_999, throttle: undefined } });
    assert.deepEqual(parseArray('0-4000000:2,1'), { ok: true, value: { count: 2_000_002, maxIndex: 4_000_000, throttle: undefined } });
    // Refused before anything is counted (four billion steps would not end within the test's time).
    const refused = parseArray('0-4000000000');
    assert.equal(refused.ok, false);
    assert.match((refused as { reason: string }).reason, /array indexes go up to 4,000,000 at most/);
    assert.deepEqual(one('#SBATCH --array=0-9999999').p.map((x) => x.code), ['malformed-value']);
  });
  void it('rejects backwards ranges, zero steps, bad throttles', () => {
    for (const bad of ['5-1', '0-10:0', '1-3%x', '%4', '1-3%2%3', 'a-b', '1,,2']) assert.equal(parseArray(bad).ok, false, bad);
    assert.deepEqual(one('#SBATCH -a 7-3').p.map((x) => x.code), ['malformed-value']);
  });
});

void describe('dependencies', () => {
  void it('every type, several ids, +time, , and ? separators, singleton', () => {
    for (const t of ['after', 'afterany', 'afterok', 'afternotok', 'aftercorr', 'afterburstbuffer']) assert.ok(parseDependency(`${t}:12`).ok, t);
    assert.deepEqual(parseDependency('afterok:1:2_3,singleton'), {
      ok: true,
      value: { any: false, conditions: [{ type: 'afterok', jobs: [{ id: '1', delayMinutes: undefined }, { id: '2_3', delayMinutes: undefined }] }, { type: 'singleton', jobs: [] }] },
    });
    assert.deepEqual(parseDependency('after:5+10?afternotok:6'), {
      ok: true,
      value: { any: true, conditions: [{ type: 'after', jobs: [{ id: '5', delayMinutes: 10 }] }, { type: 'afternotok', jobs: [{ id: '6', delayMinutes: undefined }] }] },
    });
  });
  void it('rejects unknown types, missing ids, mixed separators, delays outside after:', () => {
    for (const bad of ['afterfoo:1', 'afterok', 'afterok:', 'afterok:1,afterany:2?after:3', 'afterok:1+5', 'afterok:x']) assert.equal(parseDependency(bad).ok, false, bad);
    assert.deepEqual(one('#SBATCH -d afterok').p.map((x) => x.code), ['malformed-value']);
  });
});

void describe('other values', () => {
  void it('counts, node ranges, mail types, partition lists with item spans', () => {
    assert.deepEqual(one('#SBATCH -n 0').p.map((x) => x.code), ['malformed-value']);
    assert.deepEqual(one('#SBATCH -N 2-4').p, []);
    assert.deepEqual(one('#SBATCH --mail-type=END,FAIL').p, []);
    assert.deepEqual(one('#SBATCH --mail-type=END,SOMETIMES').p.map((x) => x.code), ['malformed-value']);
    assert.deepEqual(one('#SBATCH -A proj,proj2').p.map((x) => x.code), ['malformed-value']);
    const { d } = one('#SBATCH --partition=debug,long');
    assert.deepEqual(d.typed, {
      kind: 'list',
      items: [{ text: 'debug', span: { line: 1, start: 20, end: 25 } }, { text: 'long', span: { line: 1, start: 26, end: 30 } }],
    });
  });
});
