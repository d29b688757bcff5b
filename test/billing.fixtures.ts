import type { TestContext } from './helpers.js';

/**
 * Billing's set-up, written straight into the tables (the write endpoints of efforts,
 * projects and rates come separately): 3 users, 2 time-and-materials projects with 200
 * efforts that reach every level of the rate order, rounding, non-billable and admin time,
 * and a fixed-price project. Its own figures are computed independently of src/ below.
 */

type Db = TestContext['db'];

export interface BillingFixture {
  clientId: number;
  users: { a: number; b: number; c: number };
  projects: { p1: number; p2: number; fixed: number };
  tasks: { t1: number; t2: number; t3: number };
  efforts: FixtureEffort[];
  accountRate: number;
}

export interface FixtureEffort {
  id: number;
  project_id: number;
  task_id: number | null;
  user_id: number;
  date: string;
  minutes: number;
  billable: boolean;
  type: string;
  hourly_rate: number | null;
}

/** The rates of the fixture, cents an hour: the rate order, written out by level. */
export const RATES = {
  account: 9000,
  projectP1: 10000,
  taskT1: 15000,
  teamAonP1: 12000,
  userB: 11000,
  effort: 13333,
  cost: { a: 6000, b: 5000, c: 4000 },
};

async function addUser(db: Db, accountId: number, name: string): Promise<number> {
  const row = await db
    .insertInto('users')
    .values({
      account_id: accountId,
      email: `${name.toLowerCase()}-${Math.random().toString(36).slice(2, 9)}@billing.example`,
      first_name: name,
      last_name: 'Biller',
    } as never)
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export async function addClient(db: Db, accountId: number, extra: Record<string, unknown> = {}) {
  const row = await db
    .insertInto('clients')
    .values({
      account_id: accountId,
      name: `Billing client ${Math.random().toString(36).slice(2, 8)}`,
      street: 'Kundenweg 7',
      zip: '20095',
      city: 'Hamburg',
      country_code: 'DE',
      ...extra,
    } as never)
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export async function addProject(
  db: Db,
  accountId: number,
  clientId: number,
  extra: Record<string, unknown> = {},
): Promise<number> {
  const row = await db
    .insertInto('projects')
    .values({
      account_id: accountId,
      client_id: clientId,
      name: `Project ${Math.random()}`,
      ...extra,
    } as never)
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

async function addTask(db: Db, accountId: number, projectId: number, name: string, rate: number | null) {
  const row = await db
    .insertInto('tasks')
    .values({ account_id: accountId, project_id: projectId, name, hourly_rate: rate } as never)
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export async function addEfforts(db: Db, accountId: number, efforts: Omit<FixtureEffort, 'id'>[]) {
  const ids: number[] = [];
  for (let i = 0; i < efforts.length; i += 500) {
    const rows = await db
      .insertInto('efforts')
      .values(
        efforts.slice(i, i + 500).map((e) => ({
          account_id: accountId,
          user_id: e.user_id,
          project_id: e.project_id,
          task_id: e.task_id,
          date: e.date,
          duration_minutes: e.minutes,
          billable: e.billable ? 1 : 0,
          type: e.type,
          hourly_rate: e.hourly_rate,
          description: null,
        })) as never,
      )
      .returning('id')
      .execute();
    ids.push(...rows.map((r) => r.id));
  }
  return ids;
}

/** A small deterministic generator, so every run bills the same 200 efforts. */
function lcg(seed: number) {
  let s = seed;
  return (n: number) => {
    s = (s * 1103515245 + 12345) % 2147483648;
    // The high bits: the low ones of this generator repeat with a short period.
    return Math.floor((s / 2147483648) * n);
  };
}

export async function seedBilling(
  ctx: TestContext,
  accountId = ctx.account.accountId,
): Promise<BillingFixture> {
  const db = ctx.db;
  const account = await db
    .selectFrom('accounts')
    .select('settings')
    .where('id', '=', accountId)
    .executeTakeFirstOrThrow();
  const settings = { ...JSON.parse(account.settings || '{}'), default_hourly_rate: RATES.account };
  await db
    .updateTable('accounts')
    .set({ settings: JSON.stringify(settings) })
    .where('id', '=', accountId)
    .execute();

  const a = await addUser(db, accountId, 'Anna');
  const b = await addUser(db, accountId, 'Ben');
  const c = await addUser(db, accountId, 'Cleo');
  const clientId = await addClient(db, accountId);
  const p1 = await addProject(db, accountId, clientId, {
    name: 'Relaunch',
    hourly_rate: RATES.projectP1,
    budget_minutes: 12000,
    budget_amount: 2_000_000,
  });
  const p2 = await addProject(db, accountId, clientId, { name: 'Maintenance' });
  const fixed = await addProject(db, accountId, clientId, { name: 'Fixed', billing_mode: 'fixed_price' });
  const t1 = await addTask(db, accountId, p1, 'Design', RATES.taskT1);
  const t2 = await addTask(db, accountId, p1, 'Build', null);
  const t3 = await addTask(db, accountId, p2, 'Support', null);
  await db
    .insertInto('project_members')
    .values([
      { project_id: p1, user_id: a, hourly_rate: RATES.teamAonP1 },
      { project_id: p1, user_id: b, hourly_rate: null },
      { project_id: p2, user_id: a, hourly_rate: null },
    ] as never)
    .execute();
  await db
    .insertInto('user_rates')
    .values([
      { user_id: a, account_id: accountId, hourly_rate: null, cost_rate: RATES.cost.a },
      { user_id: b, account_id: accountId, hourly_rate: RATES.userB, cost_rate: RATES.cost.b },
      { user_id: c, account_id: accountId, hourly_rate: null, cost_rate: RATES.cost.c },
    ] as never)
    .execute();

  const rnd = lcg(37);
  const users = [a, b, c];
  const planned: Omit<FixtureEffort, 'id'>[] = [];
  for (let i = 0; i < 200; i++) {
    const project_id = i % 2 === 0 ? p1 : p2;
    const user_id = users[rnd(3)]!;
    const task_id = project_id === p1 ? [t1, t2, null][rnd(3)]! : [t3, null][rnd(2)]!;
    const month = i < 100 ? '10' : '11';
    const day = String(1 + rnd(28)).padStart(2, '0');
    const kind = rnd(20);
    planned.push({
      project_id,
      task_id,
      user_id,
      date: `2026-${month}-${day}`,
      minutes: 1 + rnd(240),
      billable: kind !== 0,
      type: kind === 1 ? 'admin' : kind === 2 ? 'travel' : 'work',
      hourly_rate: kind === 3 ? RATES.effort : null,
    });
  }
  const ids = await addEfforts(db, accountId, planned);
  return {
    clientId,
    users: { a, b, c },
    projects: { p1, p2, fixed },
    tasks: { t1, t2, t3 },
    efforts: planned.map((e, i) => ({ ...e, id: ids[i]! })),
    accountRate: RATES.account,
  };
}

// ---- The fixture's figures, computed here independently (BigInt, integer cents). ----

/** The rate order over the fixture's own tables, written out as the issue states it. */
export function fixtureRate(f: BillingFixture, e: FixtureEffort): { rate: number; source: string } {
  if (e.hourly_rate !== null) return { rate: e.hourly_rate, source: 'effort' };
  if (e.task_id === f.tasks.t1) return { rate: RATES.taskT1, source: 'task' };
  if (e.project_id === f.projects.p1 && e.user_id === f.users.a)
    return { rate: RATES.teamAonP1, source: 'team' };
  if (e.project_id === f.projects.p1) return { rate: RATES.projectP1, source: 'project' };
  if (e.user_id === f.users.b) return { rate: RATES.userB, source: 'user' };
  return { rate: RATES.account, source: 'account' };
}

export const billableOf = (e: FixtureEffort) => e.billable && e.type !== 'admin';

/** Half up: (2n + d) / 2d for non-negative n. */
const halfUp = (n: bigint, d: bigint) => (2n * n + d) / (2n * d);

/** Cents of `minutes` at `rate`: hours to 1/10,000 half up, then × rate to the cent half up. */
export function centsOf(minutes: number, rate: number): bigint {
  const tenThousandths = halfUp(BigInt(minutes) * 10000n, 60n);
  return halfUp(tenThousandths * BigInt(rate), 10000n);
}

export const roundUp = (minutes: number, step: number) => Math.ceil(minutes / step) * step;
