/**
 * The front door of users for the web pages (sign-in, invitations, the console's team page):
 * the password rules and the service functions behind them. src/web imports users only
 * from here (or the *.service.ts files), never its repositories.
 */
import type { Db } from '../../db/index.js';
import * as accountsReadModel from './accounts.read-model.js';

export type { SigninCandidate } from './accounts.read-model.js';
export {
  HashingBusyError,
  hashPassword,
  PASSWORD_MAX,
  PASSWORD_MIN,
  passwordProblem,
  verifyPassword,
} from './passwords.js';
export {
  acceptInvite,
  INVITE_TTL_HOURS,
  inviteUser,
  openInvite,
  setPassword,
  userByEmail,
} from './passwords.service.js';

/** Active users with this e-mail (one per account at most), with their password hash if set. */
export const signinCandidates = (db: Db, email: string): Promise<accountsReadModel.SigninCandidate[]> =>
  accountsReadModel.signinCandidates(db, email);

/** The users section of the import file. */
export { usersSection } from './users.import.js';
/** Users as other modules' records show and reference them. */
export { UserBasic } from './users.schemas.js';
export { toUserBasic, userExists, userIdByEmail, userRef, usersBasicByIds } from './users.service.js';
