import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parsePythonStringList, PythonLiteralError } from './python-literal.js';

describe('parsePythonStringList', () => {
  it('reads what Python repr writes for a list of str', () => {
    assert.deepEqual(parsePythonStringList("['Linda Davis']"), ['Linda Davis']);
    assert.deepEqual(parsePythonStringList(`["Ain't Misbehavin'", 'caf\\xe9', 'a\\'b', '\\u00fc', '🚁']`), ["Ain't Misbehavin'", 'café', "a'b", 'ü', '🚁']);
    assert.deepEqual(parsePythonStringList('[]'), []);
    assert.deepEqual(parsePythonStringList("['a', 'b',]"), ['a', 'b']);
  });

  it('rejects anything else with a position', () => {
    for (const bad of ["'a'", "['a'", "['a' 'b']", '[1, 2]', "['a'] x"]) {
      assert.throws(() => parsePythonStringList(bad), PythonLiteralError, bad);
    }
  });
});
