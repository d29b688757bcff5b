/**
 * The typed table map for Kysely. Each module declares its own tables by augmenting this
 * interface from its `<module>.tables.ts`, so no single file lists every table:
 *
 *   declare module '../../db/schema.js' { interface Database { clients: ClientTable } }
 */
import type { Kysely } from 'kysely';

// biome-ignore lint/suspicious/noEmptyInterface: filled by module augmentation
export interface Database {}

/** The database handle every repository takes (a transaction is one too). */
export type Db = Kysely<Database>;
