import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { connectionLost, dbFault, sqlState } from '../../src/db/faults.js';

/** An error as pg or better-sqlite3 throws it: a message and, most of the time, a code. */
const dbError = (message: string, code?: string, extra: object = {}) =>
  Object.assign(new Error(message), code === undefined ? {} : { code }, extra);

describe('dbFault: what an error says about the database rather than the request', () => {
  const cases: [string, unknown, ReturnType<typeof dbFault>][] = [
    ['refused connection', dbError('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED'), 'unavailable'],
    ['socket reset', dbError('read ECONNRESET', 'ECONNRESET'), 'unavailable'],
    ['pg: socket closed (no code)', dbError('Connection terminated unexpectedly'), 'unavailable'],
    ['pg: query read timeout', dbError('Query read timeout'), 'unavailable'],
    ['pg-pool: no connection in time', dbError('timeout exceeded when trying to connect'), 'unavailable'],
    [
      'admin shutdown 57P01',
      dbError('terminating connection due to administrator command', '57P01'),
      'unavailable',
    ],
    ['connection exception class 08', dbError('connection failure', '08006'), 'unavailable'],
    [
      'statement timeout 57014',
      dbError('canceling statement due to statement timeout', '57014'),
      'unavailable',
    ],
    ['deadlock 40P01', dbError('deadlock detected', '40P01'), 'unavailable'],
    ['too many connections 53300', dbError('sorry, too many clients already', '53300'), 'unavailable'],
    ['SQLite busy past busy_timeout', dbError('database is locked', 'SQLITE_BUSY'), 'unavailable'],
    ['disk full 53100', dbError('could not extend file', '53100'), 'storage_full'],
    ['SQLite full', dbError('database or disk is full', 'SQLITE_FULL'), 'storage_full'],
    [
      'read-only transaction 25006',
      dbError('cannot execute INSERT in a read-only transaction', '25006'),
      'read_only',
    ],
    [
      'SQLite read-only file',
      dbError('attempt to write a readonly database', 'SQLITE_READONLY'),
      'read_only',
    ],
    [
      'wrapped as cause',
      new Error('insert failed', { cause: dbError('read ECONNRESET', 'ECONNRESET') }),
      'unavailable',
    ],
    [
      'one attempt of an AggregateError',
      new AggregateError([dbError('x', 'EHOSTUNREACH'), dbError('y', 'ECONNREFUSED')], 'all failed'),
      'unavailable',
    ],
    ['unique violation is the request’s', dbError('duplicate key value', '23505'), undefined],
    ['foreign key is the request’s', dbError('violates foreign key constraint', '23503'), undefined],
    [
      'SQLite constraint is the request’s',
      dbError('UNIQUE constraint failed', 'SQLITE_CONSTRAINT_UNIQUE'),
      undefined,
    ],
    ['syntax error is a bug, not a fault', dbError('syntax error at or near', '42601'), undefined],
    ['no code, unknown message', new Error('something else'), undefined],
    ['not an error at all', 'a string', undefined],
    ['null', null, undefined],
  ];
  for (const [name, err, fault] of cases) it(name, () => assert.equal(dbFault(err), fault));
});

describe('connectionLost: the connection must not be used again', () => {
  it('for a lost socket or an ended session, not for a timeout of one statement', () => {
    assert.equal(connectionLost(dbError('Connection terminated unexpectedly')), true);
    assert.equal(connectionLost(dbError('terminating connection', '57P01')), true);
    assert.equal(connectionLost(dbError('idle-in-transaction timeout', '25P03')), true);
    // A cancelled statement leaves its connection usable; so does load.
    assert.equal(connectionLost(dbError('canceling statement', '57014')), false);
    assert.equal(connectionLost(dbError('deadlock detected', '40P01')), false);
    assert.equal(connectionLost(dbError('duplicate key value', '23505')), false);
  });
});

describe('sqlState: the database’s own code of an error', () => {
  const cases: [string, unknown, string][] = [
    ['PostgreSQL SQLSTATE', dbError('duplicate key value', '23505'), '23505'],
    [
      'better-sqlite3 code',
      dbError('UNIQUE constraint failed', 'SQLITE_CONSTRAINT_UNIQUE'),
      'SQLITE_CONSTRAINT_UNIQUE',
    ],
    ['no code', new Error('plain'), ''],
    ['a code that is not a string', dbError('odd', undefined, { code: 42 }), ''],
    // What an error wraps is not its own code: a caller asking "did the key refuse this
    // write?" must not be answered by a cause deeper down.
    ['not the cause’s', new Error('outer', { cause: dbError('inner', '23503') }), ''],
    ['null', null, ''],
    ['a string', '23505', ''],
  ];
  for (const [name, err, code] of cases) it(name, () => assert.equal(sqlState(err), code));
});
