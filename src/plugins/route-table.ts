import type { RouteOptions } from 'fastify';

/**
 * Every route's method and path pattern, kept so that a request the router did not match can
 * be told apart: a path that exists with other methods (405 with `Allow`) or no such path.
 */
type Segment = { param: boolean; text: string; rest: boolean };

const split = (path: string) => path.replace(/\/+$/, '').split('/');

function compile(url: string): Segment[] {
  return split(url).map((s) => ({ param: s.startsWith(':'), rest: s === '*', text: s }));
}

function matches(segments: Segment[], parts: string[]): boolean {
  for (let i = 0; i < segments.length; i++) {
    const s = segments[i]!;
    if (s.rest) return true;
    const p = parts[i];
    if (p === undefined || (s.param ? p === '' : p !== s.text)) return false;
  }
  return parts.length === segments.length;
}

export function routeTable() {
  const routes: { methods: string[]; segments: Segment[] }[] = [];
  return {
    add(route: RouteOptions) {
      routes.push({ methods: [route.method].flat(), segments: compile(route.url) });
    },
    /**
     * The methods of a fixed path that a parameter route also matches (`/payments/outgoing-invoice`
     * beside `/payments/{id}`): those of the matching routes with more literal segments than
     * `than` (the pattern the router took), sorted; empty when no such route exists. A request
     * with another method falls to the parameter route, whose validation would otherwise
     * answer for a path it does not own.
     */
    fixedMethodsFor(url: string, than: string): string[] {
      const parts = split(url.split('?')[0] ?? '');
      const literals = (segments: Segment[]) => segments.filter((s) => !s.param && !s.rest).length;
      const taken = literals(compile(than));
      const methods = new Set<string>();
      for (const r of routes)
        if (literals(r.segments) > taken && matches(r.segments, parts))
          for (const m of r.methods) methods.add(m);
      return [...methods].sort();
    },
    /** The methods of the routes whose pattern the path matches, sorted. */
    methodsFor(url: string): string[] {
      const parts = split(url.split('?')[0] ?? '');
      const methods = new Set<string>();
      for (const r of routes) if (matches(r.segments, parts)) for (const m of r.methods) methods.add(m);
      return [...methods].sort();
    },
  };
}
