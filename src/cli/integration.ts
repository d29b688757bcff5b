import {
  createIntegration,
  listIntegrations,
  type OAuthClientInput,
  revokeIntegration,
  updateIntegration,
} from '../modules/integration/integration.service.js';
import { ALL_SCOPES } from '../shared/scopes.js';
import { parseScopes } from '../shared/tokens.js';
import { type Command, type Ctx, positiveInt, UsageError } from './run.js';

/** The options that make an integration an OAuth client of the authorization code flow. */
const OAUTH_OPTIONS = {
  'redirect-uri': { type: 'string', multiple: true },
  public: { type: 'boolean' },
  confidential: { type: 'boolean' },
  'display-name': { type: 'string' },
  homepage: { type: 'string' },
} as const;

const OAUTH_HELP = `OAuth client of the authorization code flow:
  --redirect-uri URI   a redirect URI, matched exactly (repeat the option for more)
  --public             a public client (no secret; PKCE), --confidential the opposite
  --display-name TEXT  the name the consent page shows; --homepage URL its link ("" clears)`;

/** `--scopes "a b"`, comma or space separated; `all` stands for every scope of the specification. */
export function scopesOption(v: unknown): string[] {
  if (typeof v !== 'string')
    throw new UsageError('--scopes is required (use "" for none, "all" for every scope)');
  const list = parseScopes(v).flatMap((s) => (s === 'all' ? [...ALL_SCOPES] : [s]));
  return [...new Set(list)];
}

function oauthInput(v: Ctx['values']): OAuthClientInput {
  if (v.public && v.confidential) throw new UsageError('--public and --confidential exclude each other');
  return {
    ...(v['redirect-uri'] ? { redirectUris: v['redirect-uri'] as string[] } : {}),
    ...(v.public ? { public: true } : v.confidential ? { public: false } : {}),
    ...(v['display-name'] !== undefined ? { displayName: v['display-name'] as string } : {}),
    ...(v.homepage !== undefined ? { homepage: v.homepage as string } : {}),
  };
}

function oneId(ctx: Ctx, what: string): number {
  const [id, ...extra] = ctx.positionals;
  if (id === undefined) throw new UsageError(`${what} needs an integration ID`);
  if (extra.length) throw new UsageError(`unexpected argument: ${extra[0]}`);
  return positiveInt('ID', id)!;
}

function noPositionals(ctx: Ctx): void {
  if (ctx.positionals.length) throw new UsageError(`unexpected argument: ${ctx.positionals[0]}`);
}

export const integrationCommands: Command[] = [
  {
    name: 'integration create',
    args: '--name NAME --scopes "s1 s2 …"|all [--user ID] [--account ID] [--ttl SECONDS] [--redirect-uri URI]… [--public] [--display-name TEXT] [--homepage URL] [--json]',
    summary: 'create an integration (app) and print its access token, client id and secret',
    help: `The token acts as the user (default: the first admin of the account; default account: the
first). "${'all'}" grants every scope; "scopes" lists them with their meaning. --ttl: seconds the
token lives (default TOKEN_TTL_SECONDS, 0 = no expiry). --json prints one JSON object.
${OAUTH_HELP}`,
    options: {
      name: { type: 'string' },
      scopes: { type: 'string' },
      user: { type: 'string' },
      account: { type: 'string' },
      ttl: { type: 'string' },
      json: { type: 'boolean' },
      ...OAUTH_OPTIONS,
    },
    async run(ctx) {
      const v = ctx.values;
      noPositionals(ctx);
      if (!v.name) throw new UsageError('--name is required');
      const scopes = scopesOption(v.scopes);
      const input = {
        name: v.name as string,
        scopes,
        userId: positiveInt('--user', v.user),
        accountId: positiveInt('--account', v.account),
        ttlSeconds: v.ttl === undefined ? undefined : positiveInt('--ttl', v.ttl),
        ...oauthInput(v),
      };
      const c = await ctx.withDb(({ db }) => createIntegration(db, input));
      if (v.json) return ctx.json(c);
      ctx.out(
        `integration ${c.id} "${c.name}" (account ${c.account_id}, user ${c.user_id})\n` +
          `access_token:  ${c.access_token}\nclient_id:     ${c.client_id}\nclient_secret: ${c.client_secret}\n` +
          `scopes:        ${c.scopes.join(' ') || '(none)'}\n` +
          `client_type:   ${c.client_type}\nredirect_uris: ${c.redirect_uris.join(' ') || '(none)'}\n`,
      );
    },
  },
  {
    name: 'integration update',
    args: 'ID [--name N] [--scopes "s1 s2"|all] [--redirect-uri URI]… [--public|--confidential] [--display-name TEXT] [--homepage URL]',
    summary: "change an integration's name, scopes or OAuth client data",
    help: `Only the options given change. ("" clears display name and homepage.)\n${OAUTH_HELP}`,
    options: { name: { type: 'string' }, scopes: { type: 'string' }, ...OAUTH_OPTIONS },
    async run(ctx) {
      const id = oneId(ctx, 'integration update');
      const v = ctx.values;
      const input = {
        ...oauthInput(v),
        ...(v.name !== undefined ? { name: v.name as string } : {}),
        ...(v.scopes !== undefined ? { scopes: scopesOption(v.scopes) } : {}),
      };
      await ctx.withDb(({ db }) => updateIntegration(db, id, input));
      ctx.out(`integration ${id} updated\n`);
    },
  },
  {
    name: 'integration list',
    args: '[--account ID] [--json]',
    summary: 'list integrations: id, state, name, scopes',
    options: { account: { type: 'string' }, json: { type: 'boolean' } },
    async run(ctx) {
      noPositionals(ctx);
      const account = positiveInt('--account', ctx.values.account);
      const rows = await ctx.withDb(({ db }) => listIntegrations(db, account));
      if (ctx.values.json) return ctx.json(rows);
      for (const r of rows)
        ctx.out(`${r.id}\t${r.revoked_at ? 'revoked' : 'active'}\t${r.name}\t${r.scopes.join(' ')}\n`);
    },
  },
  {
    name: 'integration revoke',
    args: 'ID',
    summary: 'revoke an integration and all its tokens (at once, in every server process)',
    options: {},
    async run(ctx) {
      const id = oneId(ctx, 'integration revoke');
      await ctx.withDb(({ db }) => revokeIntegration(db, id));
      ctx.out(`integration ${id} revoked\n`);
    },
  },
];
