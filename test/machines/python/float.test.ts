// Python's printing and reading of numbers, against what python3 prints for the same values.
import t from 'tap';
import { floatFormat, floatRepr, intStr, numberRepr, parseFloatText, parseIntText } from '../../../machines/python/float.ts';

t.test("floatRepr is Python's repr(float)", async (t) => {
  const cases: [number, string][] = [
    [50, '50.0'],
    [0.1, '0.1'],
    [1e-5, '1e-05'],
    [1e-4, '0.0001'],
    [1e16, '1e+16'],
    [1e15, '1000000000000000.0'],
    [123.456, '123.456'],
    [1 / 3, '0.3333333333333333'],
    [2 ** 53, '9007199254740992.0'],
    [-1.5e-10, '-1.5e-10'],
    [2.5e-7, '2.5e-07'],
    [1e300, '1e+300'],
    [Infinity, 'inf'],
    [-Infinity, '-inf'],
    [NaN, 'nan'],
    [-0, '-0.0'],
    [5e-324, '5e-324'],
    [1.7976931348623157e308, '1.7976931348623157e+308'],
    [2.4 + 1.2, '3.5999999999999996'],
  ];
  for (const [n, text] of cases) t.equal(floatRepr(n), text, String(n));
});

t.test("floatFormat is Python's format(float, '.p')", async (t) => {
  const cases: [number, number, string][] = [
    [2.4 + 1.2, 15, '3.6'],
    [50, 15, '50.0'],
    [1 / 3, 15, '0.333333333333333'],
    [1e15, 15, '1e+15'],
    [1e14, 15, '1e+14'],
    [1e13, 15, '10000000000000.0'],
    [12345678901234.5, 15, '12345678901234.5'],
    [123456789012345.6, 15, '1.23456789012346e+14'],
    [99999999999999.9, 15, '99999999999999.9'],
    [0.00001234, 15, '1.234e-05'],
    [5e-324, 15, '4.94065645841247e-324'],
    [1.7976931348623157e308, 15, '1.79769313486232e+308'],
    [-0, 15, '-0.0'],
    [NaN, 15, 'nan'],
    [1234, 3, '1.23e+03'],
    [123, 3, '1.23e+02'],
    [12, 3, '12.0'],
  ];
  for (const [n, p, text] of cases) t.equal(floatFormat(n, p), text, `${n} .${p}`);
});

t.test('ints print every digit; a JSON number is an int when it has no fraction', async (t) => {
  t.equal(intStr(1e21), '1000000000000000000000');
  t.equal(intStr(-7), '-7');
  t.equal(numberRepr(5), '5');
  t.equal(numberRepr(1e21), '1000000000000000000000');
  t.equal(numberRepr(1.5), '1.5');
  t.equal(numberRepr(2.5e-7), '2.5e-07');
});

t.test("parseFloatText and parseIntText read a str as Python's float() and int()", async (t) => {
  // text, float(text) (undefined: ValueError), int(text)
  const cases: [string, number | undefined, number | undefined][] = [
    ['1', 1, 1],
    [' 1.5 ', 1.5, undefined],
    ['1_000.5', 1000.5, undefined],
    ['1__0', undefined, undefined],
    ['-inf', -Infinity, undefined],
    ['Infinity', Infinity, undefined],
    ['nan', NaN, undefined],
    ['1e5', 100000, undefined],
    ['.5', 0.5, undefined],
    ['5.', 5, undefined],
    ['', undefined, undefined],
    ['abc', undefined, undefined],
    ['0x10', undefined, undefined],
    ['+1E-3', 0.001, undefined],
    ['1_e5', undefined, undefined],
    ['-0', -0, 0],
    ['12_3', 123, 123],
  ];
  for (const [text, float, int] of cases) {
    t.same(parseFloatText(text), float, `float(${JSON.stringify(text)})`);
    t.same(parseIntText(text), int, `int(${JSON.stringify(text)})`);
  }
});
