import assert from 'node:assert/strict';
import { test } from 'node:test';
import { consoleRoles, isConsoleRole, mayManageTeam, mayWrite } from './console-roles.ts';

test('what each console role may do', () => {
  const table = [
    { role: 'owner', write: true, team: true },
    { role: 'admin', write: true, team: false },
    { role: 'viewer', write: false, team: false },
  ] as const;
  assert.deepEqual(
    table.map((row) => row.role),
    [...consoleRoles],
  );
  for (const row of table) {
    assert.equal(mayWrite(row.role), row.write, `${row.role} writes`);
    assert.equal(mayManageTeam(row.role), row.team, `${row.role} manages the team`);
  }
});

test('only the three role names are roles', () => {
  for (const name of ['owner', 'admin', 'viewer']) assert.equal(isConsoleRole(name), true, name);
  for (const name of ['Owner', '', 'operator', 'admin ']) assert.equal(isConsoleRole(name), false, name);
});
