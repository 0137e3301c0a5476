/**
 * The typed readers of command arguments (src/common/commandArgs.ts), in a real VS Code because a
 * Uri argument must be told from an object one: each field is taken only with its kind, and
 * whatever a menu, a notification or another extension passes never reaches a command as a guess.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { callback, fields, flag, givenUri, listOf, oneOf, record, text, textOrNumber, textRecord, uriOrPath, whole } from '../../src/common/commandArgs';
import { asJobRef } from '../../src/common/jobRef';

describe('command arguments', () => {
  it('reads the fields of their kind and drops the rest', () => {
    const a = fields({ name: 'x', count: 3, quiet: 'yes', mode: 'window', env: { A: '1', B: 2 }, keep: ['a', 1, 'b'] }, {
      name: text, count: whole, quiet: flag, mode: oneOf('add', 'window'), env: textRecord, keep: listOf(text), missing: text,
    });
    assert.deepEqual(a, { name: 'x', count: 3, mode: 'window', env: { A: '1' }, keep: ['a', 'b'] });
    assert.deepEqual(fields({ mode: 'other', count: 1.5 }, { mode: oneOf('add'), count: whole }), {});
  });

  it('a Uri, a string, an array or nothing has no fields', () => {
    const shape = { path: text, scheme: text };
    assert.deepEqual(fields(vscode.Uri.file('/tmp/x'), shape), {});
    assert.deepEqual(fields('name', shape), {});
    assert.deepEqual(fields(['a'], shape), {});
    assert.deepEqual(fields(undefined, shape), {});
    assert.equal(record(vscode.Uri.file('/x')), undefined);
  });

  it('the file a command is about: the Uri itself, or a uri field given as Uri or path', () => {
    const u = vscode.Uri.parse('firecrest://cluster/home/a.sh');
    assert.equal(givenUri(u), u);
    assert.equal(givenUri({ uri: u }), u);
    assert.equal(givenUri({ uri: '/tmp/b.sh' })?.toString(), vscode.Uri.file('/tmp/b.sh').toString());
    assert.equal(givenUri({ uri: 42 }), undefined);
    assert.equal(uriOrPath(''), undefined);
  });

  it('job ids come as numbers or strings; a tree row carries its record', () => {
    assert.equal(textOrNumber(812), '812');
    assert.equal(textOrNumber(Number.NaN), undefined);
    const job = { id: '7', state: 'RUNNING', name: 'x' };
    assert.deepEqual(asJobRef({ system: 's', jobId: 7 }), { profile: '', system: 's', jobId: '7', job: undefined });
    assert.equal(asJobRef({ profile: 'p', system: 's', job })?.job, job);
    assert.equal(asJobRef({ profile: 'p', system: 's', job: { id: '7' } }), undefined, 'a record without a state is not a job');
    assert.equal(asJobRef({ jobId: '7' }), undefined, 'no system');
  });

  it('callbacks are functions only', () => {
    const f = (): number => 1;
    assert.equal(fields({ f }, { f: callback<() => number>() }).f, f);
    assert.equal(fields({ f: 'alert(1)' }, { f: callback<() => number>() }).f, undefined);
  });
});
