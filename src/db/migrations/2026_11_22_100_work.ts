import {
  type ColumnDefinitionBuilder,
  type CreateTableBuilder,
  type Kysely,
  PostgresAdapter,
  sql,
} from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations work on the untyped schema
type AnyDb = Kysely<any>;

// Work management: custom field definitions, portfolios, project groups, projects with their
// team, guests, phases, milestones and epics, tasks, task comments and efforts.
export async function up(db: AnyDb): Promise<void> {
  const k = kit(db);
  const account = (c: ColumnDefinitionBuilder) => c.notNull().references('accounts.id').onDelete('cascade');

  await k
    .id(db.schema.createTable('custom_field_definitions'))
    .addColumn('account_id', 'integer', account)
    .addColumn('entity', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('label', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    // JSON array of the allowed values of a `select` field; '[]' for the other types.
    .addColumn('options', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('required', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('position', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', k.ts, (c) => c.notNull().defaultTo(k.now))
    .addColumn('updated_at', k.ts, (c) => c.notNull().defaultTo(k.now))
    .addUniqueConstraint('custom_field_definitions_uq', ['account_id', 'entity', 'key'])
    .execute();

  await k
    .id(db.schema.createTable('portfolios'))
    .addColumn('account_id', 'integer', account)
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('archived_at', k.ts)
    .addColumn('created_at', k.ts, (c) => c.notNull().defaultTo(k.now))
    .addColumn('updated_at', k.ts, (c) => c.notNull().defaultTo(k.now))
    .execute();
  await db.schema
    .createIndex('portfolios_account_idx')
    .on('portfolios')
    .columns(['account_id', 'id'])
    .execute();

  await k
    .id(db.schema.createTable('project_groups'))
    .addColumn('account_id', 'integer', account)
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('created_at', k.ts, (c) => c.notNull().defaultTo(k.now))
    .addColumn('updated_at', k.ts, (c) => c.notNull().defaultTo(k.now))
    .execute();
  await db.schema
    .createIndex('project_groups_account_idx')
    .on('project_groups')
    .columns(['account_id', 'id'])
    .execute();

  await k
    .id(db.schema.createTable('projects'))
    .addColumn('account_id', 'integer', account)
    .addColumn('client_id', 'integer', (c) => c.notNull().references('clients.id').onDelete('restrict'))
    .addColumn('portfolio_id', 'integer', (c) => c.references('portfolios.id').onDelete('set null'))
    .addColumn('identifier', 'text')
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('active'))
    .addColumn('billable', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('start_date', k.date)
    .addColumn('end_date', k.date)
    .addColumn('budget_minutes', 'integer')
    .addColumn('custom_fields', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('archived_at', k.ts)
    .addColumn('created_at', k.ts, (c) => c.notNull().defaultTo(k.now))
    .addColumn('updated_at', k.ts, (c) => c.notNull().defaultTo(k.now))
    .addUniqueConstraint('projects_account_identifier_uq', ['account_id', 'identifier'])
    .execute();
  await db.schema.createIndex('projects_account_idx').on('projects').columns(['account_id', 'id']).execute();
  await db.schema
    .createIndex('projects_client_idx')
    .on('projects')
    .columns(['account_id', 'client_id'])
    .execute();

  await db.schema
    .createTable('project_group_projects')
    .addColumn('project_group_id', 'integer', (c) =>
      c.notNull().references('project_groups.id').onDelete('cascade'),
    )
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('project_group_projects_pk', ['project_group_id', 'project_id'])
    .execute();
  await db.schema
    .createIndex('project_group_projects_project_idx')
    .on('project_group_projects')
    .column('project_id')
    .execute();

  await db.schema
    .createTable('project_members')
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('role', 'text', (c) => c.notNull().defaultTo('member'))
    .addColumn('created_at', k.ts, (c) => c.notNull().defaultTo(k.now))
    .addPrimaryKeyConstraint('project_members_pk', ['project_id', 'user_id'])
    .execute();

  // Guests are name/email records of their own; `contact_id` may point at a contact but has no
  // foreign key, so this table does not depend on the contacts module.
  await k
    .id(db.schema.createTable('project_guests'))
    .addColumn('account_id', 'integer', account)
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('contact_id', 'integer')
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('email', 'text')
    .addColumn('created_at', k.ts, (c) => c.notNull().defaultTo(k.now))
    .execute();
  await db.schema
    .createIndex('project_guests_project_idx')
    .on('project_guests')
    .columns(['project_id', 'id'])
    .execute();

  for (const table of ['project_phases', 'project_milestones', 'project_epics'] as const) {
    let t = k
      .id(db.schema.createTable(table))
      .addColumn('account_id', 'integer', account)
      .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('description', 'text');
    if (table === 'project_phases') {
      t = t
        .addColumn('position', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('start_date', k.date)
        .addColumn('end_date', k.date);
    } else if (table === 'project_milestones') {
      t = t.addColumn('due_date', k.date).addColumn('completed_at', k.ts);
    } else {
      t = t
        .addColumn('status', 'text', (c) => c.notNull().defaultTo('open'))
        .addColumn('start_date', k.date)
        .addColumn('end_date', k.date);
    }
    await t
      .addColumn('created_at', k.ts, (c) => c.notNull().defaultTo(k.now))
      .addColumn('updated_at', k.ts, (c) => c.notNull().defaultTo(k.now))
      .execute();
    await db.schema.createIndex(`${table}_project_idx`).on(table).columns(['project_id', 'id']).execute();
  }

  await k
    .id(db.schema.createTable('tasks'))
    .addColumn('account_id', 'integer', account)
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('restrict'))
    .addColumn('phase_id', 'integer', (c) => c.references('project_phases.id').onDelete('set null'))
    .addColumn('milestone_id', 'integer', (c) => c.references('project_milestones.id').onDelete('set null'))
    .addColumn('epic_id', 'integer', (c) => c.references('project_epics.id').onDelete('set null'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('open'))
    .addColumn('priority', 'text', (c) => c.notNull().defaultTo('normal'))
    .addColumn('assignee_id', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('start_date', k.date)
    .addColumn('due_date', k.date)
    .addColumn('estimate_minutes', 'integer')
    .addColumn('external_id', 'text')
    .addColumn('custom_fields', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('created_by_id', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('completed_at', k.ts)
    .addColumn('archived_at', k.ts)
    .addColumn('created_at', k.ts, (c) => c.notNull().defaultTo(k.now))
    .addColumn('updated_at', k.ts, (c) => c.notNull().defaultTo(k.now))
    .addUniqueConstraint('tasks_account_external_id_uq', ['account_id', 'external_id'])
    .execute();
  await db.schema.createIndex('tasks_account_idx').on('tasks').columns(['account_id', 'id']).execute();
  await db.schema
    .createIndex('tasks_project_idx')
    .on('tasks')
    .columns(['account_id', 'project_id'])
    .execute();
  await db.schema
    .createIndex('tasks_assignee_idx')
    .on('tasks')
    .columns(['account_id', 'assignee_id'])
    .execute();

  await k
    .id(db.schema.createTable('task_comments'))
    .addColumn('account_id', 'integer', account)
    .addColumn('task_id', 'integer', (c) => c.notNull().references('tasks.id').onDelete('cascade'))
    .addColumn('author_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('content', 'text', (c) => c.notNull())
    .addColumn('created_at', k.ts, (c) => c.notNull().defaultTo(k.now))
    .addColumn('updated_at', k.ts, (c) => c.notNull().defaultTo(k.now))
    .execute();
  await db.schema
    .createIndex('task_comments_task_idx')
    .on('task_comments')
    .columns(['task_id', 'id'])
    .execute();

  await k
    .id(db.schema.createTable('efforts'))
    .addColumn('account_id', 'integer', account)
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('project_id', 'integer', (c) => c.references('projects.id').onDelete('cascade'))
    .addColumn('task_id', 'integer', (c) => c.references('tasks.id').onDelete('set null'))
    .addColumn('date', k.date, (c) => c.notNull())
    .addColumn('duration_minutes', 'integer', (c) => c.notNull())
    .addColumn('billable', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('type', 'text', (c) => c.notNull().defaultTo('work'))
    .addColumn('description', 'text')
    .addColumn('created_at', k.ts, (c) => c.notNull().defaultTo(k.now))
    .addColumn('updated_at', k.ts, (c) => c.notNull().defaultTo(k.now))
    .execute();
  await db.schema
    .createIndex('efforts_account_date_idx')
    .on('efforts')
    .columns(['account_id', 'date'])
    .execute();
  await db.schema
    .createIndex('efforts_user_date_idx')
    .on('efforts')
    .columns(['account_id', 'user_id', 'date'])
    .execute();
}

export async function down(db: AnyDb): Promise<void> {
  for (const t of [
    'efforts',
    'task_comments',
    'tasks',
    'project_epics',
    'project_milestones',
    'project_phases',
    'project_guests',
    'project_members',
    'project_group_projects',
    'projects',
    'project_groups',
    'portfolios',
    'custom_field_definitions',
  ]) {
    await db.schema.dropTable(t).execute();
  }
}

// What this migration uses of the former shared kit (src/db/migration-kit.ts), copied in as
// it was when the migration landed: a migration imports nothing that can change after it ran.
function kit(db: AnyDb) {
  const pg = db.getExecutor().adapter instanceof PostgresAdapter;
  return {
    /** `id` primary key column. */
    id<T extends string>(t: CreateTableBuilder<T, never>) {
      return pg
        ? t.addColumn('id', 'serial', (c) => c.primaryKey())
        : t.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement());
    },
    ts: (pg ? 'timestamptz' : 'text') as 'text',
    date: (pg ? 'date' : 'text') as 'text',
    /** Default for a timestamp column: now, in the format the application reads. */
    now: pg ? sql`now()` : sql`(strftime('%Y-%m-%dT%H:%M:%fZ','now'))`,
  };
}
