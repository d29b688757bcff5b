import type { Generated } from 'kysely';

export interface PortfolioTable {
  id: Generated<number>;
  account_id: number;
  name: string;
  description: string | null;
  archived_at: string | null;
  created_at: Generated<string>;
  updated_at: Generated<string>;
}

export interface ProjectGroupTable {
  id: Generated<number>;
  account_id: number;
  name: string;
  description: string | null;
  created_at: Generated<string>;
  updated_at: Generated<string>;
}

export interface ProjectGroupProjectTable {
  project_group_id: number;
  project_id: number;
}

export interface ProjectTable {
  id: Generated<number>;
  account_id: number;
  client_id: number;
  portfolio_id: number | null;
  identifier: string | null;
  name: string;
  description: string | null;
  status: Generated<string>;
  billable: Generated<number>;
  start_date: string | null;
  end_date: string | null;
  budget_minutes: number | null;
  /** `time_and_materials` (billed by hours) or `fixed_price` (billed by its plan). */
  billing_mode: Generated<string>;
  /** Cents an hour; cents. */
  hourly_rate: Generated<number | null>;
  budget_amount: Generated<number | null>;
  /** ISO 4217; null: the client's, else the account's. */
  currency: Generated<string | null>;
  /** JSON object: custom field values by key. */
  custom_fields: Generated<string>;
  archived_at: string | null;
  created_at: Generated<string>;
  updated_at: Generated<string>;
}

export interface ProjectMemberTable {
  project_id: number;
  user_id: number;
  role: Generated<string>;
  /** Cents an hour: this member's sale rate on this project. */
  hourly_rate: Generated<number | null>;
  created_at: Generated<string>;
}

export interface ProjectGuestTable {
  id: Generated<number>;
  account_id: number;
  project_id: number;
  /** A contact id when the guest is a known contact; no foreign key (contacts are another module). */
  contact_id: number | null;
  name: string;
  email: string | null;
  created_at: Generated<string>;
}

export interface ProjectPhaseTable {
  id: Generated<number>;
  account_id: number;
  project_id: number;
  name: string;
  description: string | null;
  position: Generated<number>;
  start_date: string | null;
  end_date: string | null;
  created_at: Generated<string>;
  updated_at: Generated<string>;
}

export interface ProjectMilestoneTable {
  id: Generated<number>;
  account_id: number;
  project_id: number;
  name: string;
  description: string | null;
  due_date: string | null;
  completed_at: string | null;
  created_at: Generated<string>;
  updated_at: Generated<string>;
}

export interface ProjectEpicTable {
  id: Generated<number>;
  account_id: number;
  project_id: number;
  name: string;
  description: string | null;
  status: Generated<string>;
  start_date: string | null;
  end_date: string | null;
  created_at: Generated<string>;
  updated_at: Generated<string>;
}

declare module '../../db/schema.js' {
  interface Database {
    portfolios: PortfolioTable;
    project_groups: ProjectGroupTable;
    project_group_projects: ProjectGroupProjectTable;
    projects: ProjectTable;
    project_members: ProjectMemberTable;
    project_guests: ProjectGuestTable;
    project_phases: ProjectPhaseTable;
    project_milestones: ProjectMilestoneTable;
    project_epics: ProjectEpicTable;
  }
}
