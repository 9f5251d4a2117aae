// The original's two lenient booleans: voluptuous' Boolean() and Home Assistant's cv.boolean.
import t from 'tap';
import { booleanWord, cvBoolean, pyTruthy, volBoolean } from '../../../machines/python/boolean.ts';

t.test('the words, in any case', async (t) => {
  for (const w of ['1', 'true', 'yes', 'on', 'enable', 'TRUE', 'Yes', 'oN', 'ENABLE']) t.equal(booleanWord(w), true, w);
  for (const w of ['0', 'false', 'no', 'off', 'disable', 'False', 'NO', 'Disable']) t.equal(booleanWord(w), false, w);
  for (const w of ['', 'y', 'n', 'enabled', ' yes', '2', 'none']) t.equal(booleanWord(w), undefined, w);
});

t.test("voluptuous' Boolean(): words untrimmed, anything else by its truth", async (t) => {
  // value, vol.Boolean()(value) (undefined: Invalid)
  const cases: [unknown, boolean | undefined][] = [
    [true, true],
    [false, false],
    ['Yes', true],
    ['off', false],
    [' yes', undefined],
    ['maybe', undefined],
    [1, true],
    [0, false],
    [5, true],
    [0.5, true],
    [null, false],
    [[], false],
    [[0], true],
    [{}, false],
    [{ a: 1 }, true],
  ];
  for (const [v, b] of cases) t.equal(volBoolean(v), b, JSON.stringify(v));
  t.equal(pyTruthy(''), false);
  t.equal(pyTruthy('x'), true);
});

t.test("Home Assistant's cv.boolean: words trimmed, numbers by zero, nothing else", async (t) => {
  const cases: [unknown, boolean | undefined][] = [
    [true, true],
    [false, false],
    [' Yes ', true],
    ['off', false],
    ['maybe', undefined],
    [2, true],
    [0, false],
    [-0.5, true],
    [null, undefined],
    [[], undefined],
    [{}, undefined],
  ];
  for (const [v, b] of cases) t.equal(cvBoolean(v), b, JSON.stringify(v));
});
