// A small client-side router over the History API: links are ordinary <a href> elements (so each
// call in a list is a link whose href holds its id), and clicks on same-origin links navigate
// without reloading the page.
import { useEffect, useState } from 'preact/hooks';

const listeners = new Set<() => void>();

export function navigate(to: string): void {
  if (to === location.pathname + location.search) return;
  history.pushState(null, '', to);
  for (const fn of listeners) fn();
}

export function useLocation(): { path: string; query: URLSearchParams } {
  const [, setTick] = useState(0);
  useEffect(() => {
    const fn = () => setTick((t) => t + 1);
    listeners.add(fn);
    addEventListener('popstate', fn);
    return () => {
      listeners.delete(fn);
      removeEventListener('popstate', fn);
    };
  }, []);
  return { path: location.pathname, query: new URLSearchParams(location.search) };
}

/** Intercepts clicks on same-origin links to console pages. */
export function installLinkInterception(): void {
  document.addEventListener('click', (e) => {
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    const a = (e.target as Element).closest?.('a');
    if (!a || a.target || a.hasAttribute('download')) return;
    const url = new URL(a.href, location.href);
    if (url.origin !== location.origin || url.pathname.startsWith('/api/') || url.pathname.startsWith('/docs')) return;
    e.preventDefault();
    navigate(url.pathname + url.search + url.hash);
  });
}

/** Matches `/calls/:id` style patterns; returns the parameters or null. */
export function match(pattern: string, path: string): Record<string, string> | null {
  const p = pattern.split('/');
  const q = path.replace(/\/+$/, '').split('/');
  if (p.length !== q.length) return null;
  const out: Record<string, string> = {};
  for (let i = 0; i < p.length; i++) {
    if (p[i].startsWith(':')) out[p[i].slice(1)] = decodeURIComponent(q[i]);
    else if (p[i] !== q[i]) return null;
  }
  return out;
}
