import { isIP } from 'node:net';
import { blockedReason, type Resolver, systemResolver } from '../webhooks/webhooks.public.js';

/** The setting that lets mailboxes be on loopback or private addresses (config.ts reads it). */
export const ALLOW_PRIVATE_SETTING = 'MAILBOX_ALLOW_PRIVATE';

/**
 * The addresses of a mailbox's host, checked as webhook targets are: a tenant must not make the
 * service connect to its own network (loopback, private, link-local, metadata addresses).
 * Throws with the reason; `allowPrivate` (development, tests) lets any address through.
 */
export async function mailboxAddresses(
  host: string,
  allowPrivate: boolean,
  resolve: Resolver = systemResolver,
): Promise<string[]> {
  const name = host.toLowerCase().replace(/\.$/, '');
  // Any host may be reached: connect by its name, as given.
  if (allowPrivate) return [host];
  const hint = `; a server for development or tests may allow private addresses with ${ALLOW_PRIVATE_SETTING}=true`;
  if (name === 'localhost' || name.endsWith('.localhost')) throw new Error(`must not be localhost${hint}`);
  let addresses: string[];
  if (isIP(name)) addresses = [name];
  else {
    addresses = await resolve(name).catch(() => []);
    if (addresses.length === 0) throw new Error(`${name} could not be resolved`);
  }
  for (const a of addresses) {
    const reason = blockedReason(a);
    if (reason) throw new Error(`must not resolve to ${a}: it ${reason}${hint}`);
  }
  return addresses;
}
