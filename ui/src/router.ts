/** Hash routes (`#/triggers/t-1?x=y`): the static server only ever serves index.html, and reloads keep the page. */
export interface Route {
  segments: string[];
  query: URLSearchParams;
}

export function currentRoute(hash = location.hash): Route {
  const [path = '', search = ''] = hash.replace(/^#\/?/, '').split('?', 2);
  const segments = path
    .split('/')
    .filter((s) => s.length > 0)
    .map((s) => {
      try {
        return decodeURIComponent(s);
      } catch {
        return s;
      }
    });
  return { segments, query: new URLSearchParams(search) };
}

let rerender: () => void = () => undefined;

/** Set once by main: pages call refresh() after a write so the view shows the new state. */
export function onRefresh(handler: () => void): void {
  rerender = handler;
}

export const refresh = (): void => rerender();
