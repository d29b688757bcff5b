import type { RouteOptions } from 'fastify';

type HookName = 'onRequest' | 'preValidation' | 'preHandler' | 'onSend' | 'onResponse' | 'onError';

/**
 * Adds `hook` to one route's own `name` hooks when the route is declared (an onRoute hook),
 * `first` or `last` among them: only the routes that need it pay for it per request.
 */
export function addRouteHook(route: RouteOptions, name: HookName, hook: unknown, at: 'first' | 'last'): void {
  const own = route[name] === undefined ? [] : [route[name]].flat();
  (route as Record<HookName, unknown>)[name] = at === 'first' ? [hook, ...own] : [...own, hook];
}
