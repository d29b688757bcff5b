import type { DbHandle } from '../db/index.js';
import { type OAuthClientInput, updateIntegration } from '../modules/integration/integration.service.js';
import { parseScopes } from '../plugins/auth.js';

/** The CLI options that make an integration an OAuth client of the authorization code flow. */
export const OAUTH_CLIENT_OPTIONS = {
  'redirect-uri': { type: 'string', multiple: true },
  public: { type: 'boolean' },
  confidential: { type: 'boolean' },
  'display-name': { type: 'string' },
  homepage: { type: 'string' },
} as const;

export const INTEGRATION_OAUTH_USAGE = `    [--redirect-uri URI]… [--public] [--display-name TEXT] [--homepage URL]
                                       OAuth client of the authorization code flow: redirect URIs
                                       (exact match; repeat the option), public (no secret, PKCE)
  integration update ID [--name N] [--scopes "s1 s2"] [--redirect-uri URI]… [--public|--confidential]
                     [--display-name TEXT] [--homepage URL]   ("" clears display name and homepage)`;

interface Values {
  'redirect-uri'?: string[];
  public?: boolean;
  confidential?: boolean;
  'display-name'?: string;
  homepage?: string;
  name?: string;
  scopes?: string;
}

export function oauthClientInput(values: Values): OAuthClientInput {
  if (values.public && values.confidential) throw new Error('--public and --confidential exclude each other');
  return {
    ...(values['redirect-uri'] ? { redirectUris: values['redirect-uri'] } : {}),
    ...(values.public ? { public: true } : values.confidential ? { public: false } : {}),
    ...(values['display-name'] !== undefined ? { displayName: values['display-name'] } : {}),
    ...(values.homepage !== undefined ? { homepage: values.homepage } : {}),
  };
}

export async function updateIntegrationCommand(handle: DbHandle, id: number, values: Values): Promise<void> {
  await updateIntegration(handle.db, id, {
    ...oauthClientInput(values),
    ...(values.name !== undefined ? { name: values.name } : {}),
    ...(values.scopes !== undefined ? { scopes: parseScopes(values.scopes) } : {}),
  });
}
