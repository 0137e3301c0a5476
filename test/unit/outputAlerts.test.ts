import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AlertScanner, compileAlertRules } from '../../src/jobs/outputAlerts';

void describe('output alerts', () => {
  void it('skips patterns that do not compile and says why', () => {
    const { rules, invalid } = compileAlertRules(['Traceback', '(unclosed', '', 42]);
    assert.deepEqual(rules.map((r) => r.source), ['Traceback']);
    assert.equal(invalid.length, 1);
    assert.match(invalid[0], /^\(unclosed: /);
  });

  void it('finds every match with its line and columns, across appends cut anywhere, never twice', () => {
    const text = 'ok\nvalue NaN here and NaN\r\nCUDA error: x\nlast NaN';
    const whole = new AlertScanner(compileAlertRules(['\\bNaN\\b', 'CUDA error']).rules);
    whole.append(text);
    whole.flush();
    for (let cut = 0; cut <= text.length; cut++) {
      const s = new AlertScanner(compileAlertRules(['\\bNaN\\b', 'CUDA error']).rules);
      s.append(text.slice(0, cut));
      s.append(text.slice(cut));
      s.flush();
      assert.deepEqual(s.matches, whole.matches, `cut at ${cut}`);
    }
    assert.deepEqual(whole.matches.map((m) => [m.rule, m.line, m.start, m.end]), [
      ['\\bNaN\\b', 1, 6, 9], ['\\bNaN\\b', 1, 19, 22], ['CUDA error', 2, 0, 10], ['\\bNaN\\b', 3, 5, 8],
    ]);
  });

  void it('an empty match does not loop; matches are capped', () => {
    const s = new AlertScanner(compileAlertRules(['x*']).rules);
    s.append('abc\n'.repeat(3));
    assert.equal(s.matches.length, 0);
    const many = new AlertScanner(compileAlertRules(['a']).rules);
    many.append('a'.repeat(20_000) + '\n');
    assert.equal(many.matches.length, 10_000);
  });
});
