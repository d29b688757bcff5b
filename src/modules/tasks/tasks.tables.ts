import type { Generated } from 'kysely';

export interface TaskTable {
  id: Generated<number>;
  account_id: number;
  project_id: number;
  phase_id: number | null;
  milestone_id: number | null;
  epic_id: number | null;
  name: string;
  description: string | null;
  status: Generated<string>;
  priority: Generated<string>;
  assignee_id: number | null;
  start_date: string | null;
  due_date: string | null;
  estimate_minutes: number | null;
  /** Cents an hour for the efforts on this task. */
  hourly_rate: Generated<number | null>;
  external_id: string | null;
  /** JSON object: custom field values by key. */
  custom_fields: Generated<string>;
  created_by_id: number | null;
  completed_at: string | null;
  archived_at: string | null;
  created_at: Generated<string>;
  updated_at: Generated<string>;
}

export interface TaskCommentTable {
  id: Generated<number>;
  account_id: number;
  task_id: number;
  author_id: number;
  content: string;
  created_at: Generated<string>;
  updated_at: Generated<string>;
}

declare module '../../db/schema.js' {
  interface Database {
    tasks: TaskTable;
    task_comments: TaskCommentTable;
  }
}
