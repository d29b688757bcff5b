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
    /** The methods of the routes whose pattern the path matches, sorted. */
    methodsFor(url: string): string[] {
      const parts = split(url.split('?')[0] ?? '');
      const methods = new Set<string>();
      for (const r of routes) if (matches(r.segments, parts)) for (const m of r.methods) methods.add(m);
      return [...methods].sort();
    },
  };
}
