import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { completedAt, dateErrors, linkErrors } from '../../src/modules/tasks/tasks.domain.js';

describe('linkErrors: a task’s phase, milestone and epic belong to its project', () => {
  const cases: [string, Parameters<typeof linkErrors>[1], string[]][] = [
    ['no links', [], []],
    ['null links are fine', [{ field: 'phase_id', id: null }], []],
    ['same project', [{ field: 'phase_id', id: 1, found: { project_id: 7 } }], []],
    ['unknown phase', [{ field: 'phase_id', id: 1 }], ['phase_id']],
    [
      'milestone of another project',
      [{ field: 'milestone_id', id: 2, found: { project_id: 8 } }],
      ['milestone_id'],
    ],
    [
      'every bad link is named',
      [
        { field: 'phase_id', id: 1, found: { project_id: 8 } },
        { field: 'milestone_id', id: 2, found: { project_id: 7 } },
        { field: 'epic_id', id: 3 },
      ],
      ['phase_id', 'epic_id'],
    ],
  ];
  for (const [name, links, fields] of cases) {
    it(name, () => {
      assert.deepEqual(
        linkErrors(7, links).map((e) => e.field),
        fields,
      );
    });
  }

  it('says which project the record belongs to', () => {
    assert.equal(
      linkErrors(7, [{ field: 'epic_id', id: 3, found: { project_id: 9 } }])[0]!.message,
      'epic 3 belongs to project 9, not to project 7',
    );
  });
});

describe('dateErrors', () => {
  const cases: [string | null, string | null, boolean][] = [
    [null, null, true],
    ['2026-01-01', null, true],
    [null, '2026-01-01', true],
    ['2026-01-01', '2026-01-01', true],
    ['2026-01-01', '2026-01-02', true],
    ['2026-01-02', '2026-01-01', false],
  ];
  for (const [start, due, ok] of cases) {
    it(`start ${start} due ${due}: ${ok ? 'ok' : 'refused'}`, () => {
      assert.equal(dateErrors(start, due).length === 0, ok);
    });
  }
});

describe('completedAt', () => {
  const now = '2026-11-22T10:00:00.000Z';
  const earlier = '2026-11-01T10:00:00.000Z';
  const cases: [string, Parameters<typeof completedAt>[0], string, string | null][] = [
    ['created open', undefined, 'open', null],
    ['created done', undefined, 'done', now],
    ['becomes done', { status: 'in_progress', completed_at: null }, 'done', now],
    ['stays done: keeps the first time', { status: 'done', completed_at: earlier }, 'done', earlier],
    ['reopened', { status: 'done', completed_at: earlier }, 'open', null],
    ['in progress stays open', { status: 'open', completed_at: null }, 'in_progress', null],
  ];
  for (const [name, before, status, expected] of cases) {
    it(name, () => assert.equal(completedAt(before, status, now), expected));
  }
});
