/** The console's pages, addressed by the URL's fragment (`#/runs/<runId>`). */
export type Route =
  | { readonly page: 'sign-in' }
  | { readonly page: 'runs' }
  | { readonly page: 'run'; readonly runId: string }
  | { readonly page: 'audit' }
  | { readonly page: 'approvals' }
  | { readonly page: 'projections' };

/** The route of a fragment (`location.hash`); anything unknown is the runs list. */
export function routeOf(hash: string): Route {
  const parts = hash.replace(/^#\/?/, '').split('/').filter((p) => p !== '');
  const [first, second] = parts;
  if (first === 'runs' && second !== undefined) return { page: 'run', runId: decodeURIComponent(second) };
  if (first === 'sign-in' || first === 'audit' || first === 'approvals' || first === 'projections') return { page: first };
  return { page: 'runs' };
}

/** The fragment of a route. */
export function hashOf(route: Route): string {
  return route.page === 'run' ? `#/runs/${encodeURIComponent(route.runId)}` : `#/${route.page}`;
}
