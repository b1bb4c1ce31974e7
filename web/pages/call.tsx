// One call: the player (waveform drawn from stored peaks, audio streamed by range requests), speaker
// lanes, the transcript synced to playback (click a segment's text to hear it), speaker corrections,
// the analysis with each point linked to its moment, the call's action items, and exports.
import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { api, ApiError, ensureMediaSession, formatClock, formatDate } from '../api.js';
import { settings } from '../settings.js';
import { navigate, useLocation } from '../router.js';
import type { ActionItem } from '../types.js';

interface Segment {
  id: string;
  speakerId: string;
  speakerDisplayName: string;
  role: string;
  startSeconds: number;
  endSeconds: number;
  text: string;
}
interface Speaker {
  speakerId: string;
  displayName: string;
  role: string;
}
interface Transcript {
  durationSeconds: number;
  speakers: Speaker[];
  segments: Segment[];
  qualityWarnings?: string[];
}
interface Detail {
  callId: string;
  title: string | null;
  status: string;
  contactName: string | null;
  direction: string | null;
  durationSeconds: number | null;
  createdAt: string;
  errorReason: string | null;
  progress?: { stage: string; percent: number | null };
  analysisPending?: boolean;
  [k: string]: unknown;
}
interface Pointed {
  text: string;
  sourceSegmentIds?: string[];
}
interface Bullet {
  header: string;
  startTimestamp: string;
  paragraphs: string[];
}
interface Analysis {
  oneLineSummary?: string;
  executiveSummary?: string;
  executiveSummaryBullets?: Bullet[];
  keyDiscussionPoints?: Pointed[];
  nextSteps?: Pointed[];
  sentiment?: { overall?: string };
  tone?: { formality?: string; energy?: string; pace?: string };
  callType?: string;
  qualityWarnings?: string[];
}

/** `MM:SS` or `HH:MM:SS` in seconds. */
function clockSeconds(clock: string): number {
  return clock.split(':').reduce((t, part) => t * 60 + Number(part), 0);
}

const SPEEDS = [0.5, 0.75, 1, 1.25, 1.5, 1.75, 2];
const SKIP_SECONDS = 5;

/** The segment playing at `t`: the last one that starts at or before it (segments are in order). */
function segmentAt(segments: Segment[], t: number): number {
  let lo = 0;
  let hi = segments.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (segments[mid].startSeconds <= t) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found >= 0 && t <= segments[found].endSeconds + 0.5 ? found : -1;
}

function Player({
  callId,
  transcript,
  audioRef,
  onAudio,
}: {
  callId: string;
  transcript: Transcript | null;
  audioRef: { current: HTMLAudioElement | null };
  onAudio: (el: HTMLAudioElement | null) => void;
}) {
  const waveRef = useRef<HTMLDivElement>(null);
  // A stable ref callback: a new one on each render would detach and attach the element each time.
  const attachAudio = useCallback((el: HTMLAudioElement | null) => {
    audioRef.current = el;
    onAudio(el);
  }, []);
  const [ready, setReady] = useState(false);
  const [speed, setSpeed] = useState(1);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    ensureMediaSession().then(
      () => setReady(true),
      (err) => setError((err as Error).message),
    );
  }, [callId]);

  // The waveform: peaks computed by the service, drawn over the same <audio> element.
  useEffect(() => {
    if (!ready || !waveRef.current || !audioRef.current) return;
    let destroyed = false;
    let surfer: { destroy(): void } | null = null;
    const width = Math.max(500, Math.min(8000, waveRef.current.clientWidth * 2));
    Promise.all([import('wavesurfer.js'), api<{ durationSeconds: number; peaks: number[] }>('GET', `/api/calls/${callId}/waveform?points=${width}`)])
      .then(([{ default: WaveSurfer }, wave]) => {
        if (destroyed || !waveRef.current || !audioRef.current) return;
        surfer = WaveSurfer.create({
          container: waveRef.current,
          media: audioRef.current,
          peaks: [wave.peaks],
          duration: wave.durationSeconds,
          height: 72,
          waveColor: '#8a94a6',
          progressColor: '#1f5fbf',
          cursorColor: '#0b2e6b',
          barWidth: 2,
          barGap: 1,
          normalize: true,
        });
      })
      .catch(() => undefined); // No waveform (an older call): the player works without it.
    return () => {
      destroyed = true;
      surfer?.destroy();
    };
  }, [ready, callId]);

  useEffect(() => {
    if (audioRef.current) audioRef.current.playbackRate = speed;
  }, [speed]);

  // Keyboard: space plays or pauses, arrows skip, [ and ] change the speed (not while typing).
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const target = e.target as HTMLElement;
      if (target.closest('input, textarea, select, [contenteditable]') || e.ctrlKey || e.metaKey || e.altKey) return;
      const a = audioRef.current;
      if (!a) return;
      if (e.key === ' ' && !target.closest('button, a')) {
        e.preventDefault();
        if (a.paused) void a.play();
        else a.pause();
      } else if (e.key === 'ArrowLeft') a.currentTime = Math.max(0, a.currentTime - SKIP_SECONDS);
      else if (e.key === 'ArrowRight') a.currentTime = a.currentTime + SKIP_SECONDS;
      else if (e.key === '[') setSpeed((s) => SPEEDS[Math.max(0, SPEEDS.indexOf(s) - 1)]);
      else if (e.key === ']') setSpeed((s) => SPEEDS[Math.min(SPEEDS.length - 1, SPEEDS.indexOf(s) + 1)]);
    };
    addEventListener('keydown', onKey);
    return () => removeEventListener('keydown', onKey);
  }, []);

  const duration = transcript?.durationSeconds ?? 0;
  const speakers = transcript?.speakers ?? [];
  return (
    <section class="player" aria-label="Player">
      {error && <p role="alert">{error}</p>}
      <div ref={waveRef} class="waveform" aria-hidden="true" />
      {speakers.length > 0 && duration > 0 && (
        <div class="lanes" aria-label="Speaker lanes">
          {speakers.map((s, i) => (
            <div key={s.speakerId} class="lane">
              <span class="lane-name">{s.displayName}</span>
              <div class="lane-track">
                {transcript!.segments
                  .filter((g) => g.speakerId === s.speakerId)
                  .map((g) => (
                    <span
                      key={g.id}
                      class={`lane-seg spk-${i % 4}`}
                      style={{ left: `${(100 * g.startSeconds) / duration}%`, width: `${Math.max(0.2, (100 * (g.endSeconds - g.startSeconds)) / duration)}%` }}
                    />
                  ))}
              </div>
            </div>
          ))}
        </div>
      )}
      {ready && (
        <audio
          ref={attachAudio}
          controls
          preload="metadata"
          src={`/api/calls/${callId}/audio`}
        />
      )}
      <div class="controls">
        <button type="button" onClick={() => audioRef.current && (audioRef.current.currentTime = Math.max(0, audioRef.current.currentTime - SKIP_SECONDS))}>
          Back {SKIP_SECONDS} s
        </button>
        <button type="button" onClick={() => audioRef.current && (audioRef.current.currentTime += SKIP_SECONDS)}>
          Forward {SKIP_SECONDS} s
        </button>
        <label>
          Speed
          <select value={String(speed)} onChange={(e) => setSpeed(Number(e.currentTarget.value))}>
            {SPEEDS.map((s) => (
              <option key={s} value={String(s)}>
                {s}×
              </option>
            ))}
          </select>
        </label>
        <small>Keys: space play/pause, ← → skip {SKIP_SECONDS} s, [ ] speed.</small>
      </div>
    </section>
  );
}

function TranscriptView({
  transcript,
  current,
  seek,
  correct,
}: {
  transcript: Transcript;
  current: number;
  seek: (t: number) => void;
  correct: (ops: unknown[]) => Promise<void>;
}) {
  const list = useRef<HTMLOListElement>(null);
  const [follow, setFollow] = useState(true);
  useEffect(() => {
    if (!follow || current < 0) return;
    list.current?.querySelector(`[data-index="${current}"]`)?.scrollIntoView({ block: 'nearest' });
  }, [current, follow]);
  const others = (id: string) => transcript.speakers.filter((s) => s.speakerId !== id);
  return (
    <section class="transcript" aria-labelledby="transcript-heading">
      <div class="toolbar">
        <h2 id="transcript-heading">Transcript</h2>
        <label class="inline">
          <input type="checkbox" checked={follow} onChange={(e) => setFollow(e.currentTarget.checked)} /> Follow playback
        </label>
      </div>
      {transcript.qualityWarnings?.length ? <p class="warn">Recognition notes: {transcript.qualityWarnings.join(', ')}</p> : null}
      <ol ref={list}>
        {transcript.segments.map((s, i) => {
          const speakerIndex = transcript.speakers.findIndex((p) => p.speakerId === s.speakerId);
          return (
            <li key={s.id} data-index={i} class={i === current ? 'segment current' : 'segment'} aria-current={i === current ? 'true' : undefined}>
              <span class={`speaker spk-${speakerIndex % 4}`}>{s.speakerDisplayName}</span>
              <span class="time">{formatClock(s.startSeconds)}</span>
              <button type="button" class="seg-text" title={`Play from ${formatClock(s.startSeconds)}`} onClick={() => seek(s.startSeconds)}>
                {s.text}
              </button>
              {others(s.speakerId).length > 0 && (
                <button
                  type="button"
                  class="link small"
                  aria-label={`Move segment at ${formatClock(s.startSeconds)} to ${others(s.speakerId)[0].displayName}`}
                  onClick={() => void correct([{ type: 'MOVE_SEGMENT', segmentId: s.id, speakerId: others(s.speakerId)[0].speakerId }])}
                >
                  Move to {others(s.speakerId)[0].displayName}
                </button>
              )}
            </li>
          );
        })}
      </ol>
    </section>
  );
}

function Speakers({ transcript, correct }: { transcript: Transcript; correct: (ops: unknown[]) => Promise<void> }) {
  const [names, setNames] = useState<Record<string, string>>({});
  useEffect(() => setNames(Object.fromEntries(transcript.speakers.map((s) => [s.speakerId, s.displayName]))), [transcript]);
  return (
    <section aria-labelledby="speakers-heading">
      <h2 id="speakers-heading">Speakers</h2>
      <ul class="speakers">
        {transcript.speakers.map((s) => (
          <li key={s.speakerId}>
            <form
              onSubmit={(e) => {
                e.preventDefault();
                const name = (names[s.speakerId] ?? '').trim();
                if (name && name !== s.displayName) void correct([{ type: 'RENAME_SPEAKER', speakerId: s.speakerId, displayName: name }]);
              }}
            >
              <label>
                Name of {s.displayName}
                <input value={names[s.speakerId] ?? ''} maxLength={100} onInput={(e) => setNames({ ...names, [s.speakerId]: e.currentTarget.value })} />
              </label>
              <button type="submit">Rename</button>
              <label>
                Role of {s.displayName}
                <select value={s.role} onChange={(e) => void correct([{ type: 'SET_ROLE', speakerId: s.speakerId, role: e.currentTarget.value }])}>
                  <option value="USER">You</option>
                  <option value="CONTACT">Contact</option>
                  <option value="UNKNOWN">Unknown</option>
                </select>
              </label>
            </form>
          </li>
        ))}
      </ul>
      {transcript.speakers.length === 2 && (
        <button type="button" onClick={() => void correct([{ type: 'SWAP_SPEAKERS' }])}>
          Swap speakers
        </button>
      )}
    </section>
  );
}

function AnalysisView({ analysis, momentOf, seek }: { analysis: Analysis; momentOf: (ids?: string[]) => number | null; seek: (t: number) => void }) {
  const Moment = ({ ids }: { ids?: string[] }) => {
    const t = momentOf(ids);
    return t === null ? null : (
      <button type="button" class="link small" onClick={() => seek(t)}>
        Play {formatClock(t)}
      </button>
    );
  };
  const list = (title: string, items?: Pointed[]) =>
    items?.length ? (
      <>
        <h3>{title}</h3>
        <ul>
          {items.map((p, i) => (
            <li key={i}>
              {p.text} <Moment ids={p.sourceSegmentIds} />
            </li>
          ))}
        </ul>
      </>
    ) : null;
  return (
    <section class="analysis" aria-labelledby="analysis-heading">
      <h2 id="analysis-heading">Analysis</h2>
      {analysis.oneLineSummary && <p class="lead">{analysis.oneLineSummary}</p>}
      {analysis.executiveSummary && <p>{analysis.executiveSummary}</p>}
      <p class="meta">
        {[analysis.callType && `Type: ${analysis.callType}`, analysis.sentiment?.overall && `Sentiment: ${analysis.sentiment.overall}`, analysis.tone?.formality && `Tone: ${analysis.tone.formality}, ${analysis.tone.energy ?? ''} energy`]
          .filter(Boolean)
          .join(' · ')}
      </p>
      {analysis.executiveSummaryBullets?.length ? (
        <>
          <h3>Summary</h3>
          <ul>
            {analysis.executiveSummaryBullets.map((b, i) => (
              <li key={i}>
                <strong>{b.header}</strong>{' '}
                <button type="button" class="link small" onClick={() => seek(clockSeconds(b.startTimestamp))}>
                  Play {b.startTimestamp}
                </button>
                {b.paragraphs.map((p, j) => (
                  <p key={j}>{p}</p>
                ))}
              </li>
            ))}
          </ul>
        </>
      ) : null}
      {list('Discussion points', analysis.keyDiscussionPoints)}
      {list('Next steps', analysis.nextSteps)}
      {analysis.qualityWarnings?.length ? <p class="warn">Notes: {analysis.qualityWarnings.join(', ')}</p> : null}
    </section>
  );
}

function ActionItems({ callId, version, momentOf, seek }: { callId: string; version: number; momentOf: (ids?: string[]) => number | null; seek: (t: number) => void }) {
  const [items, setItems] = useState<ActionItem[]>([]);
  const [title, setTitle] = useState('');
  const [error, setError] = useState<string | null>(null);
  const load = () => api<ActionItem[]>('GET', `/api/calls/${callId}/action-items`).then(setItems, (e) => setError((e as Error).message));
  useEffect(() => {
    void load();
  }, [callId, version]);
  async function setDone(item: ActionItem, done: boolean) {
    try {
      const updated = await api<ActionItem>('PATCH', `/api/actions/${item.id}`, { status: done ? 'DONE' : 'OPEN' });
      setItems((list) => list.map((i) => (i.id === item.id ? updated : i)));
    } catch (err) {
      setError((err as Error).message);
    }
  }
  async function add(e: Event) {
    e.preventDefault();
    if (!title.trim()) return;
    try {
      await api('POST', `/api/calls/${callId}/action-items`, { title: title.trim() });
      setTitle('');
      void load();
    } catch (err) {
      setError((err as Error).message);
    }
  }
  return (
    <section class="items" aria-labelledby="items-heading">
      <h2 id="items-heading">Action items</h2>
      {error && <p role="alert">{error}</p>}
      {items.length === 0 && <p>No action items.</p>}
      <ul>
        {items.map((i) => {
          const t = momentOf(i.sourceSegmentIds);
          return (
            <li key={i.id} class={i.status === 'DONE' ? 'done' : ''}>
              <label>
                <input type="checkbox" checked={i.status === 'DONE'} onChange={(e) => void setDone(i, e.currentTarget.checked)} />
                {i.title}
              </label>
              <span class="meta">{[i.intent && i.intent.toLowerCase(), i.dueDate && `due ${i.dueDate}`, i.priority && i.priority.toLowerCase(), i.source === 'MANUAL' ? 'added by you' : null].filter(Boolean).join(' · ')}</span>
              {t !== null && (
                <button type="button" class="link small" onClick={() => seek(t)}>
                  Play {formatClock(t)}
                </button>
              )}
            </li>
          );
        })}
      </ul>
      <form onSubmit={add} class="inline-form">
        <label>
          New action item
          <input value={title} maxLength={500} onInput={(e) => setTitle(e.currentTarget.value)} />
        </label>
        <button type="submit">Add</button>
      </form>
    </section>
  );
}

export function CallPage({ id }: { id: string }) {
  const [detail, setDetail] = useState<Detail | null>(null);
  const [transcript, setTranscript] = useState<Transcript | null>(null);
  const [analysis, setAnalysis] = useState<Analysis | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [current, setCurrent] = useState(-1);
  const [analysisVersion, setAnalysisVersion] = useState(0);
  const audioRef = useRef<HTMLAudioElement | null>(null);
  // The element as state too: effects that listen to it run again once the player has made it.
  const [audio, setAudio] = useState<HTMLAudioElement | null>(null);
  // `?t=` (a search hit's moment): start there once the audio can seek.
  const startAt = Number(useLocation().query.get('t') ?? NaN);

  async function loadAll() {
    try {
      const d = await api<Detail>('GET', `/api/calls/${id}`);
      setDetail(d);
      if (d.status === 'COMPLETED') {
        const [t, a] = await Promise.all([api<Transcript>('GET', `/api/calls/${id}/transcript`), api<Analysis>('GET', `/api/calls/${id}/analysis`).catch(() => null)]);
        setTranscript(t);
        setAnalysis(a);
      }
    } catch (err) {
      setError(err instanceof ApiError && err.status === 404 ? 'This call does not exist or was deleted.' : (err as Error).message);
    }
  }
  useEffect(() => {
    void loadAll();
  }, [id]);
  // While the call is processed, follow its progress.
  useEffect(() => {
    if (!detail || detail.status === 'COMPLETED' || detail.status === 'FAILED') return;
    const timer = setTimeout(() => void loadAll(), 4000);
    return () => clearTimeout(timer);
  }, [detail]);

  // The segment under the playhead, found by binary search on every time update.
  useEffect(() => {
    const a = audio;
    if (!a || !transcript) return;
    const onTime = () => setCurrent(segmentAt(transcript.segments, a.currentTime));
    a.addEventListener('timeupdate', onTime);
    a.addEventListener('seeked', onTime);
    return () => {
      a.removeEventListener('timeupdate', onTime);
      a.removeEventListener('seeked', onTime);
    };
  }, [transcript, audio]);

  useEffect(() => {
    const a = audio;
    if (!a || !Number.isFinite(startAt)) return;
    const go = () => {
      a.currentTime = startAt;
    };
    if (a.readyState >= 1) go();
    else a.addEventListener('loadedmetadata', go, { once: true });
  }, [audio, startAt]);

  const startOf = useMemo(() => new Map(transcript?.segments.map((s) => [s.id, s.startSeconds]) ?? []), [transcript]);
  const momentOf = (ids?: string[]) => {
    const times = (ids ?? []).map((i) => startOf.get(i)).filter((t): t is number => t !== undefined);
    return times.length ? Math.min(...times) : null;
  };
  const seek = (t: number) => {
    const a = audioRef.current;
    if (!a) return;
    a.currentTime = t;
    void a.play().catch(() => undefined);
  };
  async function correct(operations: unknown[]) {
    try {
      const t = await api<Transcript>('PATCH', `/api/calls/${id}/speakers`, { operations });
      setTranscript(t);
      setNotice('Speakers corrected. The analysis is being redone for the corrected transcript…');
      // The analysis is redone on the service's queue after a correction: the call detail says
      // `analysisPending` until it is stored.
      for (let i = 0; i < 60; i++) {
        await new Promise((r) => setTimeout(r, 2000));
        const d = await api<Detail>('GET', `/api/calls/${id}`);
        if (!d.analysisPending) break;
      }
      setAnalysis(await api<Analysis>('GET', `/api/calls/${id}/analysis`));
      setAnalysisVersion((v) => v + 1);
      setNotice('Speakers corrected; the analysis follows the corrected transcript.');
    } catch (err) {
      setError((err as Error).message);
    }
  }
  async function remove() {
    if (!confirm('Delete this call with its recording and analysis? This cannot be undone.')) return;
    try {
      await api('DELETE', `/api/calls/${id}`);
      navigate('/');
    } catch (err) {
      setError((err as Error).message);
    }
  }
  async function reanalyze() {
    try {
      await api('POST', `/api/calls/${id}/reanalyze`);
      setAnalysis(await api<Analysis>('GET', `/api/calls/${id}/analysis`));
      setAnalysisVersion((v) => v + 1);
      setNotice('Analysis redone.');
    } catch (err) {
      setError((err as Error).message);
    }
  }

  if (error && !detail) return <p role="alert">{error}</p>;
  if (!detail) return <p aria-busy="true">Loading…</p>;
  return (
    <>
      <p>
        <a href="/">← All calls</a>
      </p>
      <h1>{detail.title ?? 'Untitled call'}</h1>
      <p class="meta">
        {[detail.contactName, detail.direction?.toLowerCase(), detail.durationSeconds != null ? formatClock(detail.durationSeconds) : null, formatDate(detail.createdAt)].filter(Boolean).join(' · ')}
      </p>
      {error && <p role="alert">{error}</p>}
      {notice && <p role="status">{notice}</p>}
      {detail.status === 'FAILED' && <p role="alert">Processing failed: {detail.errorReason ?? 'unknown reason'}.</p>}
      {detail.status !== 'COMPLETED' && detail.status !== 'FAILED' && (
        <p role="status">
          Processing ({detail.progress?.stage ?? detail.status.toLowerCase()}
          {detail.progress?.percent != null ? `, ${detail.progress.percent} %` : ''})…
        </p>
      )}
      <Player callId={id} transcript={transcript} audioRef={audioRef} onAudio={setAudio} />
      <div class="exports">
        <span>Download:</span>
        {detail.status === 'COMPLETED' && (
          <>
            <a href={`/api/calls/${id}/transcript?format=txt`} download>
              Transcript (TXT)
            </a>
            <a href={`/api/calls/${id}/transcript?format=srt`} download>
              Subtitles (SRT)
            </a>
            <a href={`/api/calls/${id}/transcript?format=vtt`} download>
              Subtitles (VTT)
            </a>
          </>
        )}
        <a href={`/api/calls/${id}/audio`} download>
          Original audio
        </a>
        {settings.reanalyzeAvailable && detail.status === 'COMPLETED' && (
          <button type="button" onClick={() => void reanalyze()}>
            Analyse again
          </button>
        )}
        <button type="button" class="danger" onClick={() => void remove()}>
          Delete call
        </button>
      </div>
      {transcript && (
        <div class="call-grid">
          <div>
            <TranscriptView transcript={transcript} current={current} seek={seek} correct={correct} />
          </div>
          <div>
            {analysis && <AnalysisView analysis={analysis} momentOf={momentOf} seek={seek} />}
            <ActionItems callId={id} version={analysisVersion} momentOf={momentOf} seek={seek} />
            <Speakers transcript={transcript} correct={correct} />
          </div>
        </div>
      )}
    </>
  );
}
