import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { firstInvalidLine, firstInvalidLineOf, Utf8Check } from './utf8-check.js';

/** The bytes of `bytes` cut into chunks at the given offsets. */
function cut(bytes: Buffer, at: readonly number[]): Buffer[] {
  const bounds = [0, ...at, bytes.length];
  return bounds.slice(1).map((end, i) => bytes.subarray(bounds[i]!, end));
}

describe('Utf8Check', () => {
  // 1-, 2-, 3- and 4-byte characters: "a", "é" (C3 A9), "€" (E2 82 AC), "𝄞" (F0 9D 84 9E).
  const text = Buffer.from('aé€𝄞\nb');

  it('accepts UTF-8 cut into chunks anywhere, a character split across chunks included', () => {
    for (let i = 0; i <= text.length; i += 1) {
      for (let j = i; j <= text.length; j += 1) {
        const check = new Utf8Check();
        assert.ok(cut(text, [i, j]).every((c) => check.push(c)) && check.end(), `cut at ${i}, ${j}`);
      }
    }
  });

  it('refuses a Latin-1 byte, a stray continuation byte, an overlong form and a character cut short at the end', () => {
    for (const bad of [Buffer.from([0x63, 0x61, 0x66, 0xe9]), Buffer.from([0x61, 0x80, 0x62]), Buffer.from([0xc0, 0xaf]), Buffer.from([0xed, 0xa0, 0x80])]) {
      const check = new Utf8Check();
      assert.equal(check.push(bad) && check.end(), false, bad.toString('hex'));
    }
    const check = new Utf8Check();
    assert.equal(check.push(text.subarray(0, 4)), true, 'a cut "€" may still be completed');
    assert.equal(check.end(), false, 'but not when the stream ends');
  });

  it('finds the first line that is not UTF-8, whatever the chunks', async () => {
    const bytes = Buffer.concat([Buffer.from('ok\nstill é ok\ncaf'), Buffer.from([0xe9]), Buffer.from('\nlast\n')]);
    for (let i = 0; i <= bytes.length; i += 1) assert.equal(await firstInvalidLine(cut(bytes, [i])), 3, `cut at ${i}`);
    assert.equal(await firstInvalidLine([Buffer.from('a\nb')]), undefined);
    assert.equal(await firstInvalidLine([Buffer.from([0x61, 0x0a, 0xff])]), 2, 'a last line without a line break');
  });
});

describe('firstInvalidLineOf', () => {
  it('names the first line that is not UTF-8, or none', () => {
    assert.equal(firstInvalidLineOf(Buffer.from('a\nb\n')), undefined);
    assert.equal(firstInvalidLineOf(Buffer.concat([Buffer.from('ok\nstill ok\ncaf'), Buffer.from([0xe9]), Buffer.from('\nlast')])), 3);
    assert.equal(firstInvalidLineOf(Buffer.concat([Buffer.from('a\n'), Buffer.from([0xff])])), 2);
  });
});
