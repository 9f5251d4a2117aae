// The one order of versions, the original's (AwesomeVersion, PEP 440 for these forms), table-driven:
// the core's CalVer with its dev, beta and rc pre-releases, apps' semver, docker's engine
// versions, the container tags, and what is no version at all.
import t from 'tap';
import { compareVersions, isNewer, versionOrder, VersionCompareError } from '../../actors/version-order.ts';

t.test('each pair in order, both ways', async (t) => {
  // [older, newer]
  const table: [string, string][] = [
    ['2026.10.9', '2026.11.0'],
    ['2026.9.0', '2026.10.0'],
    ['2026.12.5', '2027.1.0'],
    ['2026.11.0b1', '2026.11.0'],
    ['2026.11.0b2', '2026.11.0b10'],
    ['2026.11.0.dev20261101', '2026.11.0'],
    ['2026.11.0.dev20261101', '2026.11.0.dev20261102'],
    ['2026.11.0.dev20261130', '2026.11.0a1'],
    ['2026.11.0a1', '2026.11.0b1'],
    ['2026.11.0b9', '2026.11.0rc1'],
    ['2026.11.0rc2', '2026.11.0'],
    ['2026.11.0rc1', '2026.11.0rc2'],
    ['2026.11.0', '2026.11.0.post1'],
    ['2026.11.0', '2026.11.1.dev20261201'],
    ['2026.11.0b1.dev3', '2026.11.0b1'],
    ['1.2.3', '1.2.4'],
    ['1.2.9', '1.10.0'],
    ['1.2.3-beta.1', '1.2.3'],
    ['1.2.3-alpha.2', '1.2.3-beta.1'],
    ['1.2.3-rc.1', '1.2.3'],
    ['v1.2.3', '1.3.0'],
    ['9', '10'],
    ['20.10.24+dfsg1', '24.0.0'],
    ['2026.11.0', 'stable'],
    ['stable', 'beta'],
    ['latest', 'dev'],
  ];
  for (const [older, newer] of table) {
    t.equal(compareVersions(older, newer), -1, `${older} < ${newer}`);
    t.equal(compareVersions(newer, older), 1, `${newer} > ${older}`);
  }
});

t.test('neither is newer: the same text, or the same numbers written shorter', async (t) => {
  for (const [a, b] of [['2026.11.0', '2026.11.0'], ['2026.11', '2026.11.0'], ['1.2.3', '1.2.3+build.7'], ['landingpage', 'landingpage']]) {
    t.equal(compareVersions(a, b), 0, `${a} = ${b}`);
  }
});

t.test('what is no version cannot be ordered', async (t) => {
  for (const [a, b] of [['landingpage', '2026.11.0'], ['2026.11.0', 'landingpage'], ['', '1.0'], ['1.0', 'banana'], ['2026.11.0-1', '2026.11.0']]) {
    t.throws(() => compareVersions(a, b), VersionCompareError, `${JSON.stringify(a)} and ${JSON.stringify(b)}`);
    t.equal(versionOrder(a, b), undefined);
  }
});

t.test('isNewer is the original need_update: false when unknown or not ordered', async (t) => {
  t.equal(isNewer('2026.11.0', '2026.11.0b1'), true, 'a beta user is told the release is out');
  t.equal(isNewer('2026.11.0b1', '2026.11.0'), false, 'a release user is not offered the beta');
  t.equal(isNewer('2026.11.0', '2026.11.0'), false);
  t.equal(isNewer('2026.11.0', 'landingpage'), false, 'a core on its landing page');
  t.equal(isNewer(null, '2026.11.0'), false);
  t.equal(isNewer('2026.11.0', undefined), false);
});
