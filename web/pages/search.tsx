// Search across calls: each hit lists the transcript segments that match, linked to their moment
// (the call page seeks to `?t=` seconds).
import { useEffect, useState } from 'preact/hooks';
import { api, formatClock, formatDate } from '../api.js';
import { navigate, useLocation } from '../router.js';

interface Hit {
  callId: string;
  title: string | null;
  contactName: string | null;
  createdAt: string;
  snippet: string;
  segments: Array<{ segmentId: string; startSeconds: number; speakerDisplayName: string | null }>;
}

/** The service's snippet: escaped text with <mark> around matches; turned into nodes, never HTML. */
function Snippet({ html }: { html: string }) {
  const parts = html.split(/(<mark>|<\/mark>)/);
  let marked = false;
  const out = [];
  for (const [i, p] of parts.entries()) {
    if (p === '<mark>') marked = true;
    else if (p === '</mark>') marked = false;
    else {
      const text = new DOMParser().parseFromString(p, 'text/html').documentElement.textContent ?? '';
      out.push(marked ? <mark key={i}>{text}</mark> : <span key={i}>{text}</span>);
    }
  }
  return <p class="snippet">{out}</p>;
}

export function SearchPage() {
  const { query } = useLocation();
  const q = query.get('q') ?? '';
  const [text, setText] = useState(q);
  const [hits, setHits] = useState<Hit[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    if (!q) return;
    api<{ items: Hit[] }>('GET', `/api/calls/search?q=${encodeURIComponent(q)}&limit=20`).then(
      (r) => {
        setHits(r.items);
        setError(null);
      },
      (e) => setError((e as Error).message),
    );
  }, [q]);
  return (
    <>
      <h1>Search</h1>
      <form
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          if (text.trim()) navigate(`/search?q=${encodeURIComponent(text.trim())}`);
        }}
      >
        <label>
          Search your calls
          <input type="search" value={text} onInput={(e) => setText(e.currentTarget.value)} />
        </label>
        <button type="submit">Search</button>
      </form>
      {error && <p role="alert">{error}</p>}
      {hits && (
        <p role="status">
          {hits.length} call{hits.length === 1 ? '' : 's'} found
        </p>
      )}
      <ul class="hits">
        {hits?.map((h) => (
          <li key={h.callId}>
            <a href={`/calls/${h.callId}`}>{h.title ?? 'Untitled call'}</a> <span class="meta">{[h.contactName, formatDate(h.createdAt)].filter(Boolean).join(' · ')}</span>
            <Snippet html={h.snippet} />
            {h.segments.length > 0 && (
              <ul class="moments">
                {h.segments.map((s) => (
                  <li key={s.segmentId}>
                    <a href={`/calls/${h.callId}?t=${s.startSeconds}`}>
                      {formatClock(s.startSeconds)} {s.speakerDisplayName ?? ''}
                    </a>
                  </li>
                ))}
              </ul>
            )}
          </li>
        ))}
      </ul>
    </>
  );
}
