/**
 * The front door of oauth for the web pages: importing it registers the consent page's texts,
 * among them the scopes in plain words (`scope.<name>`) that the console's integrations page
 * shows too. Grants are read and revoked through grants.service.ts.
 */
import './consent.messages.js';
